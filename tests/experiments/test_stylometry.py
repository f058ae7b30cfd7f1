"""The stylometry experiment: honest splits, vectorised samples, the control at chance, the CLI's shape."""

from __future__ import annotations

import chess
import chess.pgn
import numpy as np
import pytest

import experiments.stylometry as stylometry_module
from experiments.stylometry import (
    CONTROL,
    StylometryConfig,
    load_groups,
    stylometry,
    wilson_interval,
)
from iam.chunks.model import OpponentModel
from iam.games.pgn import load_player_games
from iam.measure.candidates import CandidateRankers, CandidateScoring, CandidateSettings
from iam.ranker import MoveRanker

from .conftest import run_json

NAMES = ("Alpha Ann", "Beta Bob")


def _config(files, *, positions_per_game: int | None = 8, games_filter=None, **options) -> StylometryConfig:
    candidates = CandidateSettings(
        rankers=CandidateRankers(train_positions=80),
        scoring=CandidateScoring(positions_per_game=positions_per_game),
        ks=(1, 3),
        games_filter=games_filter,
    )
    settings = dict(
        players=tuple((name, str(files[name])) for name in NAMES),
        candidates=candidates,
        predictors=("iam", CONTROL),
        samples=40,
    )
    settings.update(options)
    return StylometryConfig(**settings)


@pytest.fixture(scope="module")
def spied_run(synthetic_players):
    """One small run with spies on what each step was given."""
    seen = {"fit": [], "matrix": [], "temperature": []}
    patch = pytest.MonkeyPatch()
    for cls in (OpponentModel, MoveRanker):
        original = cls.fit

        def spy(self, games, *rest, _original=original, **options):
            seen["fit"].extend(game.moves for game in games)
            return _original(self, games, *rest, **options)

        patch.setattr(cls, "fit", spy)
    original_matrix, original_temperature = stylometry_module._game_matrix, stylometry_module._temperature

    def matrix_spy(scorer, games, config, progress):
        found = original_matrix(scorer, games, config, progress)
        seen["matrix"].append(([game.index for game in games], found[0]))
        return found

    def temperature_spy(matrix, owner, ks, seed, deals=1):
        seen["temperature"].append(matrix)
        return original_temperature(matrix, owner, ks, seed, deals)

    patch.setattr(stylometry_module, "_game_matrix", matrix_spy)
    patch.setattr(stylometry_module, "_temperature", temperature_spy)
    try:
        result = stylometry(_config(synthetic_players))
    finally:
        patch.undo()
    return result, seen


def test_distinct_players_are_identified_and_the_control_is_at_chance(spied_run):
    result, _ = spied_run
    rows = result.rows.set_index(["predictor", "k"])
    assert rows.loc[("iam", 3), "accuracy"] >= 0.9
    assert rows.loc[("iam", 3), "top2"] == pytest.approx(1.0)
    for k in (1, 3):
        # One random deal of the control's shares can lean either way (the interval counts the
        # test games' variation, not the deal's): its interval covers chance, and it stays far
        # below the model that knows the players.
        assert rows.loc[(CONTROL, k), "accuracy"] < rows.loc[("iam", k), "accuracy"] - 0.2
        low, high = rows.loc[(CONTROL, k), "ci95"]
        assert low <= 0.5 <= high
    shares = result.confusion.groupby(["predictor", "k", "true"])["share"].sum()
    assert np.allclose(shares, 1.0)


def test_test_games_never_reach_a_fit_or_the_temperature(spied_run, synthetic_players):
    _, seen = spied_run
    held = set()
    for name in NAMES:
        games, _ = load_player_games([synthetic_players[name]], player=name)
        held |= {game.moves for game in games if game.index % 5 in (3, 4)}
    assert seen["fit"] and not held & set(seen["fit"])
    # one matrix per part and predictor (iam, then the control): development games first
    (development, dev_iam), (same, _), (test, _), (again, _) = seen["matrix"]
    assert development == same and test == again
    assert development and all(index % 5 == 3 for index in development)
    assert test and all(index % 5 == 4 for index in test)
    columns = dev_iam.shape[1]
    assert columns == len(NAMES)
    # the control's candidates once per deal (three by default), deal after deal
    assert [m.shape for m in seen["temperature"]] == [(len(development), columns), (len(development), 3 * columns)]
    assert np.array_equal(seen["temperature"][0], dev_iam)


def _text(game) -> str:
    return " ".join(move.uci() for move in game.moves)


def test_the_control_fits_one_model_per_group_in_each_deal_each_deal_a_partition(synthetic_players):
    config = _config(synthetic_players, control_deals=2)
    groups, _ = stylometry_module.load_groups(config)
    rng = np.random.default_rng(config.seed)
    splits = [stylometry_module.split_group(group, config, rng) for group in groups]
    dealt = []
    patch = pytest.MonkeyPatch()
    patch.setattr(MoveRanker, "fit", lambda self, games, **_: dealt.append(sorted(_text(g) for g in games)) or self)
    try:
        models = stylometry_module._control_models(splits, config, rng)
    finally:
        patch.undo()
    pool = sorted(_text(game) for split in splits for game in split["fitting"])
    assert len(models) == 2 * len(groups)
    for deal in (dealt[:2], dealt[2:]):
        assert sorted(deal[0] + deal[1]) == pool  # each deal shares out every fitting game once
    assert dealt[:2] != dealt[2:]  # and the two deals differ


def test_wilson_interval_contains_the_share_and_narrows_with_trials():
    low, high = wilson_interval(0.8, 10)
    assert low < 0.8 < high
    assert wilson_interval(0.8, 1000)[1] - wilson_interval(0.8, 1000)[0] < high - low
    assert np.isnan(wilson_interval(0.5, 0)[0])


def test_the_cli_prints_the_issues_json_shape(synthetic_players):
    payload = run_json(
        "experiment", "stylometry",
        "--players", *NAMES, "--pgn", *(str(synthetic_players[name]) for name in NAMES),
        "--predictor", "iam", "--k", "1,2", "--samples", "10", "--train-positions", "60",
        "--positions-per-game", "4", "--max-test-games", "3", "--max-dev-games", "3",
    )
    assert [set(row) for row in payload["rows"]] == [{"predictor", "k", "accuracy", "top2", "ci95", "samples"}] * 4
    assert {row["predictor"] for row in payload["rows"]} == {"iam", CONTROL}
    assert set(payload["confusion"]["iam"]["2"]["Alpha Ann"]) == set(NAMES)


def _opening_player(folder, name: str, opening: str, seed: int):
    """A player who always opens with ``opening`` (SAN, as White) and then moves at random: 30 games."""
    rng = np.random.default_rng(seed)
    texts = []
    for number in range(30):
        game = chess.pgn.Game()
        game.headers["White"], game.headers["Black"] = name, f"Rand {number}"
        node, board = game, chess.Board()
        for san in opening.split():
            node = node.add_variation(board.parse_san(san))
            board.push(node.move)
        while len(board.move_stack) < 30 and not board.is_game_over():
            move = sorted(board.legal_moves, key=chess.Move.uci)[rng.integers(board.legal_moves.count())]
            node = node.add_variation(move)
            board.push(move)
        texts.append(str(game))
    path = folder / f"{name.split()[0].lower()}.pgn"
    path.write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    return path


def test_the_repertoire_alone_tells_players_with_their_own_openings_apart(tmp_path):
    files = {
        "Alpha Ann": _opening_player(tmp_path, "Alpha Ann", "e4 e5 Nf3 Nc6 Bb5", 1),
        "Beta Bob": _opening_player(tmp_path, "Beta Bob", "d4 d5 c4 e6 Nc3", 2),
    }
    result = stylometry(_config(files, predictors=("repertoire", CONTROL), positions_per_game=None))
    rows = result.rows.set_index(["predictor", "k"])
    assert rows.loc[("repertoire", 1), "accuracy"] == 1.0 and rows.loc[("repertoire", 3), "accuracy"] == 1.0
    games = (
        result.games[result.games["deal"] == 0]
        .set_index(["part", "group", "game", "candidate", "predictor"])["moves"]
        .unstack("predictor")
    )
    # only remembered positions count (the player's three opening moves, now and then a repeat
    # of a random one); the control scores all 15
    assert (games["repertoire"] >= 3).all() and games["repertoire"].mean() < 4
    assert (games[CONTROL] == 15).all()


def test_the_filters_leave_games_out_without_moving_the_splits(synthetic_players):
    from iam.games.filters import GameConditions, GameFilter, parse_date

    whole, _ = load_groups(_config(synthetic_players))
    before_1950 = GameFilter(conditions=GameConditions(until=parse_date("1949", "--until")))
    found, notes = load_groups(_config(synthetic_players, games_filter=before_1950))
    for group, kept in zip(whole, found):
        assert [game.index for game in kept.games] == [game.index for game in group.games if game.date < "1950"]
        assert len(kept.games) == 20 and len(group.games) == 30
    assert any("10 games left out by the filters" in note for note in notes)
