"""iam.chunks.explain: a fitted model's ranked predictions with the chunks and rote memory behind them."""

import chess
import pytest

from iam.chunks.explain import MAX_CHUNK_SOURCES, explain


@pytest.fixture(scope="module")
def positions(botvinnik_games):
    """The start and a middlegame position of one of the player's games, the player to move."""
    game = botvinnik_games[0]
    board = game.board()
    boards = []
    for ply, move in enumerate(game.moves[:30]):
        if board.turn == game.color and ply in (0, 1, 20, 21):
            boards.append(board.copy())
        board.push(move)
    return boards


def test_predictions_are_ranked_legal_and_agree_with_the_models_beliefs(small_model, positions):
    for board in positions:
        explanations = explain(small_model, board)
        assert explanations, board.fen()
        beliefs = [e.belief for e in explanations]
        assert beliefs == sorted(beliefs, reverse=True) and all(b > 0 for b in beliefs)
        assert sum(beliefs) <= 1 + 1e-9
        rows, model_beliefs = small_model.candidates(board)
        expected = {m: float(b) for m, b in zip(rows.moves, model_beliefs) if b > 0}
        assert {e.move: e.belief for e in explanations} == pytest.approx(expected)
        for e in explanations:
            assert e.move in board.legal_moves and e.san == board.san(e.move)


def test_sources_describe_chunks_as_placed_and_the_rote_memory(small_model, positions):
    seen_kinds = set()
    for board in positions:
        for e in explain(small_model, board):
            chunks = [s for s in e.sources if s["kind"] == "chunk"]
            rote = [s for s in e.sources if s["kind"] == "rote"]
            assert len(chunks) == min(e.chunk_sources, MAX_CHUNK_SOURCES) and len(rote) <= 1
            assert [s["belief"] for s in chunks] == sorted((s["belief"] for s in chunks), reverse=True)
            for source in chunks:
                assert all(chess.parse_square(name) in chess.SQUARES for name in source["squares"])
                assert 0 <= source["belief"] <= 1 and 0 <= source["completion"] <= 1
                assert source["formed_games"] <= source["games"] <= source["occurrences"]
                assert set(source["rules"]) == {
                    "frequency", "large_patterns", "major_pieces", "temporal_similarity", "winning_patterns",
                }
            for source in rote:
                assert 0 < source["chosen"] <= source["games"]
                assert source["share"] == pytest.approx(source["chosen"] / source["games"])
            seen_kinds.update(s["kind"] for s in e.sources)
    assert seen_kinds == {"chunk", "rote"}


def test_top_keeps_the_strongest(small_model, positions):
    board = positions[-1]
    every = explain(small_model, board)
    assert [e.move for e in explain(small_model, board, top=2)] == [e.move for e in every[:2]]
    assert explain(small_model, board, top=0) == []


def test_learned_features_carry_the_moves_own_values(small_model, positions):
    """Each feature shows the candidate row's value; its contribution is that value standardised times its weight."""
    belief = small_model.belief_
    board = positions[-1]
    rows, _ = small_model.candidates(board)
    for e in explain(small_model, board, top=3):
        row = rows.features[rows.moves.index(e.move)]
        assert [c.feature for c in e.features] != [] and {c.feature for c in e.features} == set(belief.features)
        for c in e.features:
            j = belief.features.index(c.feature)
            assert c.value == pytest.approx(float(row[j]))
            assert c.contribution == pytest.approx((c.value - belief.mean[j]) / belief.scale[j] * belief.coef[j])
