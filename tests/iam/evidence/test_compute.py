"""Each family's computation on a hand-made context: what it reads, and the columns it returns for a position."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.evidence.compute import (
    engine_columns,
    glance_columns,
    habit_columns,
    move_columns,
    policy_columns,
    population_columns,
    search_columns,
    shape_columns,
    value_columns,
)
from iam.evidence.evidence import Evidence, EvidenceSources
from iam.evidence.movefeatures import move_features
from iam.evidence.registry import FAMILY_REGISTRY, family_columns
from iam.evidence.shapefeatures import shape_features
from iam.priors.patterns import PATTERN_CELLS, MovePatterns
from iam.priors.population import PopulationBook
from iam.priors.positions import position_of

ROOK_TAKES_QUEEN = chess.Move.from_uci("d1d5")
KING_UP = chess.Move.from_uci("e1e2")


def _position():
    board = chess.Board()
    for san in ("e4", "e5", "Nf3", "Nc6", "Bb5", "a6"):
        board.push_san(san)
    return position_of(board)


def _rook_position():
    """White to move: the rook on d1 can take the queen on d5 (12 legal moves, sorted by UCI)."""
    return position_of(chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"))


class _Patterns:
    """Population patterns whose log rate of a pattern is its cell index (so a column shows the keys)."""

    log_rates = np.arange(PATTERN_CELLS, dtype=np.float64)


class _ValueNet:
    def __init__(self):
        self.seen = []

    def scores(self, position, move_columns):
        self.seen.append(move_columns)
        return {move: (500.0 if move == ROOK_TAKES_QUEEN else 0.0) for move in position.moves}


class _PolicyNet:
    def __init__(self):
        self.seen = []

    def log_beliefs(self, position, move_columns):
        self.seen.append(move_columns)
        return np.array([0.0 if move == ROOK_TAKES_QUEEN else -50.0 for move in position.moves])


class _Context:
    """A stand-in for the evidence: fixed scores, stub networks, patterns whose rates are their keys."""

    def __init__(self, sources: EvidenceSources | None = None):
        self.sources = sources or EvidenceSources()
        self.value = _ValueNet()
        self.policy = _PolicyNet()

    def value_network(self):
        return self.value

    def policy_network(self):
        return self.policy

    def population_patterns(self):
        return _Patterns()

    def pattern_lift(self):
        return -np.arange(PATTERN_CELLS, dtype=np.float64)

    def search_scores(self, position):
        return {move: (900.0 if move == ROOK_TAKES_QUEEN else 0.0) for move in position.moves}

    def engine_scores(self, position):
        return {move: (800.0 if move == ROOK_TAKES_QUEEN else -100.0) for move in position.moves}

    def glance_scores(self, position):
        return {move: (0.0 if move == KING_UP else -20.0) for move in position.moves}


def test_a_family_computes_its_columns_from_any_context():
    """A family's computation reads its context's public sources only: a stand-in context will do."""

    class Context:
        sources = EvidenceSources()

        def population_patterns(self) -> MovePatterns:
            return MovePatterns()

    position = _position()
    found = population_columns(Context(), position, {})
    assert tuple(found) == family_columns("population")
    expected = Evidence(families=("population",)).features(position)
    for name in found:
        np.testing.assert_array_equal(found[name], expected[name])


@pytest.mark.parametrize("family", list(FAMILY_REGISTRY))
def test_every_family_returns_its_registered_columns_one_value_per_legal_move(family):
    position = _rook_position()
    found = FAMILY_REGISTRY[family].compute(_Context(), position, {})
    assert tuple(found) == family_columns(family)
    assert all(column.shape == (len(position.moves),) for column in found.values())


def test_the_move_and_shape_families_are_their_feature_modules():
    position = _position()
    for columns, expected in (
        (move_columns(_Context(), position, {}), move_features(position)),
        (shape_columns(_Context(), position, {}), shape_features(position)),
    ):
        assert list(columns) == list(expected)
        for name in expected:
            np.testing.assert_array_equal(columns[name], expected[name])


def test_the_score_families_read_their_own_source_of_scores():
    """search, engine and glance turn their scores into score features: the best move, losses in pawns, ranks."""
    position = _rook_position()
    take = position.moves.index(ROOK_TAKES_QUEEN)
    others = np.arange(len(position.moves)) != take
    search = search_columns(_Context(), position, {})
    assert search["search_best"][take] == 1 and not search["search_best"][others].any()
    assert search["search_loss"][take] == 0 and np.all(search["search_loss"][others] == 9.0)
    assert search["search_best_gap"][take] == 3.0  # a gap of 9 pawns, capped at 3
    assert np.all(search["search_rank"][others] == np.log1p(1))
    engine = engine_columns(_Context(), position, {})
    assert np.all(engine["engine_loss"][others] == 9.0) and engine["engine_best"][take] == 1
    glance = glance_columns(_Context(), position, {})
    king = position.moves.index(KING_UP)
    assert glance["glance_best"][king] == 1 and glance["glance_best"].sum() == 1
    assert glance["glance_loss"][take] == pytest.approx(0.2)


def test_the_networks_reuse_the_move_columns_already_found_and_compute_them_otherwise():
    position = _rook_position()
    context = _Context()
    found = move_features(position)
    value = value_columns(context, position, found)
    assert context.value.seen[-1] is found
    take = position.moves.index(ROOK_TAKES_QUEEN)
    assert value["value_best"][take] == 1 and value["value_loss"].max() == 5.0
    policy_columns(context, position, found)
    assert context.policy.seen[-1] is found
    value_columns(context, position, {"unrelated": np.zeros(len(position.moves))})
    computed = context.value.seen[-1]
    assert "exchange_gain" in computed
    np.testing.assert_array_equal(computed["capture"], found["capture"])


def test_the_policy_family_ranks_the_networks_beliefs_and_floors_their_logarithm():
    position = _rook_position()
    policy = policy_columns(_Context(), position, {})
    take = position.moves.index(ROOK_TAKES_QUEEN)
    assert policy["policy_best"][take] == 1 and policy["policy_best"].sum() == 1
    assert policy["policy_log_belief"][take] == 0.0
    assert np.all(np.delete(policy["policy_log_belief"], take) == -20.0)  # -50 floored
    assert np.all(np.delete(policy["policy_rank"], take) == np.log1p(1))


def test_the_habits_family_without_an_iam_model_is_zeros_and_the_players_pattern_lift():
    position = _rook_position()
    habits = habit_columns(_Context(), position, {})
    for name in family_columns("habits")[:-1]:
        np.testing.assert_array_equal(habits[name], np.zeros(len(position.moves)))
    # d1d5 is a rook (type 4) from d1 (3) to d5 (35) in the opening phase (0); e1e2 a king (6) from e1 (4) to e2 (12)
    assert habits["pattern_lift"][position.moves.index(ROOK_TAKES_QUEEN)] == -((3 * 64 + 3) * 64 + 35)
    assert habits["pattern_lift"][position.moves.index(KING_UP)] == -((5 * 64 + 4) * 64 + 12)


def test_the_population_family_reads_the_book_and_the_rate_of_each_moves_pattern():
    position = _rook_position()
    epd = position.board.epd()
    book = PopulationBook({"A": {epd: {"d1d5": 2}}, "B": {epd: {"d1d5": 1, "e1e2": 1}}})
    population = population_columns(_Context(EvidenceSources(book=book)), position, {})
    take, king = position.moves.index(ROOK_TAKES_QUEEN), position.moves.index(KING_UP)
    assert population["book_share"][take] == 0.75 and population["book_share"][king] == 0.25
    assert population["book_share"].sum() == 1.0
    assert population["book_log_games"][take] == pytest.approx(np.log(4))
    assert population["book_top"][take] == 1 and population["book_top"].sum() == 1
    assert population["pattern_rate"][take] == (3 * 64 + 3) * 64 + 35
    empty = population_columns(_Context(), position, {})  # no book: an empty one
    assert not any(empty[name].any() for name in ("book_share", "book_log_games", "book_top"))

