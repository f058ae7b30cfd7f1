"""The estimator: scikit-learn conventions, beliefs, explanations and leave-one-game-out training."""

from __future__ import annotations

import chess
import chess.pgn
import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import NotFittedError

from iam.chunks.leave_one_out import OwnCounts
from iam.chunks.model import OpponentModel
from iam.measure.evaluation import first_training_games

QGD = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9"


def boards_from(games, count=8):
    for game in games[:count]:
        board = game.board()
        for move in game.moves[:30]:
            board.push(move)
        yield board


def test_estimator_conventions():
    model = OpponentModel(min_games=3, belief="rules")
    assert model.get_params()["min_games"] == 3
    assert clone(model).get_params() == model.get_params()
    assert not any(name.endswith("_") for name in vars(model))  # __init__ stores parameters only
    with pytest.raises(NotFittedError):
        model.predict_proba(chess.Board())
    with pytest.raises(NotFittedError):
        model.save("never-written.json")
    for name, value in [("min_games", True), ("random_state", "0"), ("player", 3), ("rule_weights", {"x": 1})]:
        with pytest.raises(ValueError, match=name):
            OpponentModel(**{name: value}).fit([])
    assert (
        not hasattr(OpponentModel, "_validate_params")
        or OpponentModel._validate_params is BaseEstimator._validate_params
    )
    with pytest.raises(ValueError, match="belief"):
        OpponentModel(belief="magic").fit([])
    with pytest.raises(ValueError, match="no games"):
        OpponentModel().fit([])


def test_beliefs_are_probabilities_over_legal_moves(small_model, botvinnik_games):
    for board in boards_from([g for g in botvinnik_games if g.split == "test"]):
        beliefs = small_model.predict_proba(board)
        assert beliefs, board.fen()
        values = list(beliefs.values())
        assert all(0.0 < v <= 1.0 for v in values)
        assert sum(values) <= 1.0 + 1e-9
        assert values == sorted(values, reverse=True)
        assert all(move in board.legal_moves for move in beliefs)
        assert small_model.predict(board) == list(beliefs)
        assert small_model.predict(board, top=2) == list(beliefs)[:2]


def test_explanations_match_the_beliefs(small_model):
    board = chess.Board(QGD)
    predictions = small_model.explain(board, top=4)
    beliefs = small_model.predict_proba(board)
    assert [p.move for p in predictions] == list(beliefs)[:4]
    assert [p.belief for p in predictions] == pytest.approx(list(beliefs.values())[:4])
    top = predictions[0]
    assert top.san == board.san(top.move)
    chunk_sources = [s for s in top.sources if s["kind"] == "chunk"]
    assert chunk_sources and top.chunk_sources >= len(chunk_sources)
    source = chunk_sources[0]
    # the listed squares hold the chunk after the move: its landing square is one of them
    assert chess.square_name(top.move.to_square) in source["squares"]
    assert set(source["rules"]) == {
        "frequency",
        "large_patterns",
        "major_pieces",
        "temporal_similarity",
        "winning_patterns",
    }
    assert set(top.learned) == set(small_model.belief_.features)


def test_rote_memory_drives_opening_predictions(small_model):
    board = chess.Board()
    beliefs = small_model.predict_proba(board)
    first = small_model.rote_.lookup(board)
    assert first is not None
    favourite = max(first.counts, key=first.counts.get)
    assert next(iter(beliefs)).uci() == favourite


def test_fitting_is_deterministic(botvinnik_games):
    games = first_training_games(botvinnik_games, 15)
    one = OpponentModel(belief_positions=200, random_state=4).fit(games)
    two = OpponentModel(belief_positions=200, random_state=4).fit(games)
    board = chess.Board(QGD)
    assert one.predict_proba(board) == two.predict_proba(board)


def test_rules_belief_is_the_seeds_heuristics(botvinnik_games):
    model = OpponentModel(belief="rules").fit(first_training_games(botvinnik_games, 15))
    assert model.belief_ is None and model.belief_kind_ == "rules"
    beliefs = model.predict_proba(chess.Board(QGD))
    assert beliefs and sum(beliefs.values()) <= 1.0 + 1e-9


def test_leave_one_game_out_counts_equal_a_library_without_that_game(botvinnik_games):
    from iam.chunks.board import planes_from_bitboards
    from iam.chunks.collector import collect
    from iam.chunks.features import COUNT_COLUMNS
    from iam.chunks.replay import replay

    games = first_training_games(botvinnik_games, 12)
    full = OpponentModel(belief="rules", min_games=1, min_formed_games=0).fit(games)
    moves = replay(games)
    occurrences = collect(planes_from_bitboards(moves.bitboards), moved_to=moves.moved_to)
    own = OwnCounts(full.library_, occurrences, moves, games_in=np.array([3]))
    without = OpponentModel(belief="rules", min_games=1, min_formed_games=0).fit(games[:3] + games[4:])
    rows = np.arange(len(full.library_))
    reduced = full.facts_.counts - own.lookup(rows, 3)
    table = without.library_.table
    kept = reduced[:, COUNT_COLUMNS.index("games")] > 0
    codes = full.library_.table.index.to_numpy()
    assert set(codes[kept]) == set(table.index)
    expected = table.loc[codes[kept], list(COUNT_COLUMNS)].to_numpy()
    assert np.array_equal(reduced[kept], expected)


@pytest.mark.parametrize("belief", ["rules", "learned"])
@pytest.mark.parametrize(("count", "stored"), [(1, 0), (2, 7), (3, 15)])
def test_fitting_on_one_to_three_games(botvinnik_games, belief, count, stored):
    games = botvinnik_games[:count]
    model = OpponentModel(belief=belief).fit(games)
    assert len(model.library_) == stored == model.chunk_counts_["stored"]
    assert model.n_games_ == count
    if stored == 0:
        # No chunk is in two games and no sequence was repeated: the model knows nothing to predict.
        assert any("no chunk passed the filters" in note for note in model.notes_)
        assert len(model.rote_) == 0
        for board in boards_from(games, 1):
            assert model.predict_proba(board) == {}
    else:
        assert not any("no chunk passed" in note for note in model.notes_)


def test_an_empty_chunk_library_predicts_from_the_rote_memory_only(botvinnik_games):
    game = botvinnik_games[0]  # Botvinnik has Black: 1. d4 Nf6
    assert game.color == chess.BLACK and [m.uci() for m in game.moves[:2]] == ["d2d4", "g8f6"]
    model = OpponentModel(min_games=1).fit([game])  # formed in >= 2 games is impossible with one game
    assert len(model.library_) == 0 and len(model.rote_) > 0
    board = chess.Board()
    board.push_uci("d2d4")
    assert model.predict_proba(board) == {chess.Move.from_uci("g8f6"): 1.0}
    board.push_uci("c7c5")
    board.push_uci("d4d5")
    assert model.predict_proba(board) == {}  # off the remembered line, and no chunk


@pytest.mark.parametrize(("belief", "steps"), [("rules", 3), ("learned", 5)])
def test_fit_advances_a_progress_wrapper_once_per_step(botvinnik_games, belief, steps):
    seen = []

    def progress(items):
        for item in items:
            seen.append(item)
            yield item

    OpponentModel(belief=belief).fit(botvinnik_games[:3], progress=progress)
    assert seen == ["replay", "chunks", "library and rote memory", "belief sample", "belief fit"][:steps]


def test_an_explained_chunk_is_shown_as_placed_on_its_squares(small_model, botvinnik_games):
    """After the move, each listed square holds the pattern's piece there (a mirror placement shows mirrored)."""
    from iam.chunks.chunk import decode, from_pattern

    letters = {1: chess.PAWN, 2: chess.KNIGHT, 3: chess.BISHOP, 4: chess.ROOK, 5: chess.QUEEN, 6: chess.KING}
    checked = 0
    for game in [g for g in botvinnik_games if g.split == "test"][:3]:
        board = game.board()
        for move in game.moves[:40]:
            for prediction in small_model.explain(board, top=2):
                after = board.copy()
                after.push(prediction.move)
                for source in (s for s in prediction.sources if s["kind"] == "chunk"):
                    cells = [int(v) for v in decode(from_pattern(source["pattern"])).reshape(-1) if v]
                    assert len(cells) == len(source["squares"])
                    for value, name in zip(cells, source["squares"]):
                        piece = after.piece_at(chess.parse_square(name))
                        if value == 7:  # an opposing pawn
                            assert piece == chess.Piece(chess.PAWN, not board.turn)
                        else:
                            assert piece == chess.Piece(letters[value], board.turn)
                    checked += 1
            board.push(move)
    assert checked > 20


def test_fitting_python_chess_games_is_a_type_error_naming_player_games():
    expected = r"OpponentModel\.fit expects PlayerGame records .*not chess\.pgn\.Game \(games\[0\]\)"
    with pytest.raises(TypeError, match=expected):
        OpponentModel().fit([chess.pgn.Game()])
