"""Building the population prior: training games only, every master left out once, files that round-trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from iam.errors import DataError, ModelFileError
from iam.games.bundled import bundled_pgn
from iam.games.pgn import load_player_games
from iam.priors.patterns import count_patterns
from iam.priors.population import load_prior, save_prior
from iam.ranker.build_prior import PriorSettings, build_population_prior, build_prior


@pytest.fixture(scope="module")
def two_masters(botvinnik_games):
    capablanca, _ = load_player_games([bundled_pgn("Capablanca")], player="Capablanca", max_games=20)
    return {"Botvinnik": botvinnik_games[:20], "Capablanca": capablanca}


def test_the_prior_leaves_each_master_out_and_never_reads_test_games(two_masters, tmp_path):
    settings = PriorSettings(families=("move", "population"), positions_per_master=60)
    prior, fits = build_population_prior(two_masters, settings)
    assert set(fits["without"]) == {"", "Botvinnik", "Capablanca"}
    assert set(fits["families"]) == {"move+population", "move", "population"}
    full = fits[(fits["without"] == "") & (fits["families"] == "move+population")].iloc[0]
    alone = fits[(fits["without"] == "Botvinnik") & (fits["families"] == "move+population")].iloc[0]
    assert full["positions"] == 120 and alone["positions"] == 60
    # The book counts training games only: every (position, move) it holds was played in one.
    booked = {(epd, move) for epd, moves in prior.book.masters["Botvinnik"].items() for move in moves}
    training_pairs = set()
    for game in two_masters["Botvinnik"]:
        if game.split == "train":
            board = game.board()
            for move in game.moves[:30]:
                if board.turn == game.color:
                    training_pairs.add((board.epd(), move.uci()))
                board.push(move)
    assert booked <= training_pairs
    # The move patterns count training games only, each master's apart.
    training = [game for game in two_masters["Botvinnik"] if game.split == "train"]
    assert prior.patterns.masters["Botvinnik"].positions == sum(game.player_moves for game in training)
    assert np.array_equal(prior.patterns.masters["Botvinnik"].played, count_patterns(training).played)
    # A model of Botvinnik is pulled towards the ranker that never saw him.
    without = next(r for r in prior.rankers if r.without == "Botvinnik" and r.families == ("move", "population"))
    assert prior.weights_for(("move", "population"), "Botvinnik, Mikhail") == without.weights
    path = tmp_path / "prior.json.gz"
    save_prior(prior, path)
    loaded = load_prior(path)
    assert loaded.book.masters == prior.book.masters and loaded.rankers == prior.rankers
    assert np.array_equal(loaded.patterns.masters["Capablanca"].legal, prior.patterns.masters["Capablanca"].legal)


def test_the_pure_python_sets_leave_out_both_engine_families():
    from iam.ranker.build_prior import _family_sets

    sets = _family_sets(("move", "glance", "engine", "search"))
    assert sets[0] == ("move", "search", "engine", "glance")
    assert ("move", "search", "engine") in sets and ("glance",) in sets  # one left out, one alone
    assert ("move", "search") in sets and ("search",) in sets  # the pure-Python ranker's
    assert ("move", "glance") not in sets  # no pure-Python set keeps the glance


def test_the_shipped_prior_weighs_the_glance_beside_the_engine():
    from iam.evidence.registry import DEFAULT_FAMILIES, with_engine
    from iam.priors.population import PRIOR_FILE

    prior = load_prior(PRIOR_FILE)
    weights = prior.weights_for(with_engine(DEFAULT_FAMILIES), "Botvinnik")
    ranker = next(r for r in prior.rankers if r.without == "Botvinnik" and r.families == with_engine(DEFAULT_FAMILIES))
    assert weights == ranker.weights
    assert any(name.startswith("glance_") and weight != 0 for name, weight in weights.items())
    assert not any(name.startswith(("glance_", "engine_")) for name in prior.weights_for(DEFAULT_FAMILIES, "Botvinnik"))


def test_a_prior_fitted_for_other_families_pulls_only_lightly():
    from iam.evidence.registry import DEFAULT_FAMILIES
    from iam.priors.population import PRIOR_FILE
    from iam.ranker.estimator import DEFAULT_PRIOR_STRENGTH, RIDGE_STRENGTH, prior_penalty

    prior = load_prior(PRIOR_FILE)
    assert prior.fitted_for(DEFAULT_FAMILIES, "Botvinnik") and prior.fitted_for(("move",), None)
    assert prior.fitted_for(tuple(f for f in DEFAULT_FAMILIES if f != "search"), "Capablanca")  # one left out
    # Move and habits together were never fitted: the nearest fit weighs the move family
    # beside the search, so its weights are no place to pull a ranker without the search hard.
    assert not prior.fitted_for(("move", "habits"), "Botvinnik")
    assert prior_penalty("population", None, exact=True) == DEFAULT_PRIOR_STRENGTH
    assert prior_penalty("population", None, exact=False) == RIDGE_STRENGTH
    assert prior_penalty("population", 500.0, exact=False) == 500.0  # a strength given is a strength kept
    assert prior_penalty("none", None) == RIDGE_STRENGTH


def test_a_prior_fitted_at_two_depths_pulls_each_ranker_towards_its_own(two_masters, tmp_path):
    from iam.priors.population import merge_priors

    deep, shallow = (
        build_population_prior(
            two_masters, PriorSettings(families=("move", "search"), positions_per_master=20, search_depth=depth)
        )[0]
        for depth in (2, 1)
    )
    merged = merge_priors([deep, shallow])
    assert merged.search_depths() == (1, 2)
    with_search = lambda prior: next(  # noqa: E731
        r for r in prior.rankers if r.without == "Botvinnik" and r.families == ("move", "search")
    )
    # The search family's weights differ with its depth; each ranker is pulled towards its own.
    assert with_search(deep).weights != with_search(shallow).weights
    assert merged.weights_for(("move", "search"), "Botvinnik", 2) == with_search(deep).weights
    assert merged.weights_for(("move", "search"), "Botvinnik", 1) == with_search(shallow).weights
    assert merged.fitted_for(("move", "search"), "Botvinnik", 1) and not merged.fitted_for(
        ("move", "search"), "Botvinnik", 3
    )
    # Without the search, depth does not matter: those rankers are kept once.
    assert merged.fitted_for(("move",), "Botvinnik", 3)
    assert sum(r.families == ("move",) and r.without is None for r in merged.rankers) == 1
    path = tmp_path / "merged.json.gz"
    save_prior(merged, path)
    assert load_prior(path).rankers == merged.rankers
    with pytest.raises(ValueError, match="depth 2"):
        merge_priors([deep, deep])


def test_a_version_2_prior_names_one_depth_for_the_whole_file(tmp_path):
    from iam.models.files import write_document
    from iam.priors.population import PRIOR_FORMAT

    ranker = {"families": ["move", "search"], "without": None, "positions": 3, "weights": {"castle": 1.0}}
    plain = dict(ranker, families=["move"])
    old = {
        "format": PRIOR_FORMAT,
        "version": 2,
        "settings": {"search_depth": 2},
        "books": {},
        "patterns": {},
        "rankers": [ranker, plain],
    }
    write_document(old, tmp_path / "old.json")
    prior = load_prior(tmp_path / "old.json")
    assert [r.search_depth for r in prior.rankers] == [2, None]
    assert prior.fitted_for(("move", "search"), None, 2) and not prior.fitted_for(("move", "search"), None, 3)


def test_an_update_replaces_the_same_fits_and_keeps_the_others():
    from iam.priors.population import PopulationBook, PopulationPrior, PriorWeights, update_prior

    book = PopulationBook({"A": {"epd": {"e2e4": 3}}})
    base = PopulationPrior(
        book=book,
        rankers=(
            PriorWeights(("move", "search"), None, {"w": 1.0}, positions=10, search_depth=3),
            PriorWeights(("move", "search"), "A", {"w": 2.0}, positions=8, search_depth=3),
            PriorWeights(("move", "search"), None, {"w": 3.0}, positions=10, search_depth=2),
            PriorWeights(("move",), None, {"w": 4.0}, positions=10),
        ),
    )
    newer = PopulationPrior(
        book=book,
        rankers=(
            PriorWeights(("search", "move"), None, {"w": 10.0}, positions=20, search_depth=3),
            PriorWeights(("move", "policy"), None, {"w": 11.0}, positions=20),
        ),
    )
    updated = update_prior(base, newer)
    weights = {(r.families, r.without, r.search_depth): r.weights["w"] for r in updated.rankers}
    assert weights == {
        (("move", "search"), "A", 3): 2.0,
        (("move", "search"), None, 2): 3.0,
        (("move",), None, None): 4.0,
        (("search", "move"), None, 3): 10.0,
        (("move", "policy"), None, None): 11.0,
    }
    with pytest.raises(ValueError, match="different books"):
        update_prior(base, PopulationPrior(book=PopulationBook({"B": {}}), rankers=newer.rankers))


def test_a_prior_to_update_is_checked_before_any_fit(tmp_path):
    """A damaged file, or a prior of other players' games, is refused before the (long) fitting starts:
    the players given here have no games, so any fit would fail otherwise."""
    damaged = tmp_path / "damaged.json.gz"
    damaged.write_bytes(b"\x1f\x8b\x08\x00 not gzip after all")
    with pytest.raises(ModelFileError, match="damaged gzip"):
        build_prior({"Nobody": []}, PriorSettings(), [1], source={}, update=damaged)
    shipped = Path(__file__).parents[3] / "iam" / "priors" / "population_prior.json.gz"
    with pytest.raises(DataError, match="built from other players' games .*Botvinnik"):
        build_prior({"Nobody": []}, PriorSettings(), [1], source={}, update=shipped)
