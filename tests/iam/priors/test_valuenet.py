"""The value network: its inputs against python-chess, fitting recovers a known rule, files, the bundled net."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.errors import ModelFileError
from iam.evidence.evidence import Evidence, EvidenceSources
from iam.evidence.movefeatures import move_features
from iam.measure.evaluation import first_training_games
from iam.priors.positions import player_positions, position_of
from iam.priors.valuenet import (
    BOARD_INPUTS,
    VALUE_MOVE_INPUTS,
    ValueNet,
    board_inputs,
    bundled_value_net,
    fit_value_net,
    value_table,
)
from iam.ranker import MoveRanker


def _reference_inputs(board: chess.Board, move: chess.Move) -> list[int]:
    """The inputs of the position after ``move``, by playing it."""
    mover = board.turn
    after = board.copy()
    after.push(move)
    found = []
    for square, piece in after.piece_map().items():
        seen = square if mover == chess.WHITE else chess.square_mirror(square)
        found.append(((0 if piece.color == mover else 6) + piece.piece_type - 1) * 64 + seen)
    return sorted(found)


@pytest.mark.parametrize(
    "fen",
    [
        chess.STARTING_FEN,
        "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # castling, promotion by capture
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",  # en passant, Black to move
        "8/2P5/8/8/8/8/5k1p/K7 b - - 0 1",  # promotions of both kinds of piece
    ],
)
def test_inputs_are_the_pieces_after_each_move_from_the_movers_side(fen):
    board = chess.Board(fen)
    moves = list(board.legal_moves)
    inputs = board_inputs(board, moves)
    assert inputs.shape == (len(moves), BOARD_INPUTS)
    for row, move in enumerate(moves):
        assert sorted(inputs[row].indices.tolist()) == _reference_inputs(board, move)
    assert board.fen() == fen  # the board is left as it was


def test_white_and_black_see_mirrored_positions_alike():
    white = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    black = white.mirror()
    a = board_inputs(white, [chess.Move.from_uci("e2e4")])
    b = board_inputs(black, [chess.Move.from_uci("e7e5")])
    assert sorted(a.indices.tolist()) == sorted(b.indices.tolist())


@pytest.fixture(scope="module")
def rule_table(botvinnik_games):
    """Positions whose 'engine' scores follow a known rule: the exchange gain, and a pawn for a knight on f3."""
    positions = player_positions(first_training_games(botvinnik_games, 8), sample=120, random_state=0)
    rows = []
    for position in positions:
        columns = move_features(position)
        boards = board_inputs(position.board, position.moves)
        knight_f3 = np.array(
            [
                position.board.piece_type_at(m.from_square) == chess.KNIGHT
                and (m.to_square ^ (0 if position.board.turn else 56)) == chess.F3
                for m in position.moves
            ]
        )
        scores = columns["exchange_gain"] - columns["exchange_loss"] + 1.0 * knight_f3
        rows.append((boards, np.column_stack([columns[n] for n in VALUE_MOVE_INPUTS]), scores))
    return value_table(rows)


def test_fitting_learns_a_rule_the_inputs_can_express(rule_table):
    net = fit_value_net(rule_table, hidden=16, epochs=60, batch_positions=32, random_state=0)
    values = net.values(rule_table.boards, rule_table.moves)
    heads, ends = rule_table.starts[:-1], rule_table.starts[1:]
    best = lambda v: np.mean(  # noqa: E731
        [t[np.argmax(v[a:b])] == t.max() for a, b in zip(heads, ends) for t in [rule_table.targets[a:b]]]
    )
    same = best(values)  # positions where the net's first move is (one of) the rule's best
    sizes = np.diff(rule_table.starts)
    centre = lambda v: v - np.repeat(np.add.reduceat(v, heads) / sizes, sizes)  # noqa: E731
    assert np.corrcoef(centre(values), centre(rule_table.targets))[0, 1] > 0.8
    assert same > 0.8
    untrained = fit_value_net(rule_table, hidden=16, epochs=0, random_state=0).values(
        rule_table.boards, rule_table.moves
    )
    chance = best(untrained)
    assert same > chance + 0.2


def test_a_net_survives_its_file_and_a_damaged_one_is_refused(rule_table, tmp_path):
    net = fit_value_net(rule_table, hidden=4, epochs=2, random_state=0)
    path = tmp_path / "net.json.gz"
    net.save(path)
    again = ValueNet.load(path)
    position = position_of(chess.Board())
    columns = move_features(position)
    before, after = net.scores(position, columns), again.scores(position, columns)
    assert before.keys() == after.keys()
    assert all(before[m] == pytest.approx(after[m], abs=1e-3) for m in before)
    data = net.to_dict()
    data["output"] = data["output"][:-1]
    with pytest.raises(ModelFileError, match="do not fit together"):
        ValueNet.from_dict(data)
    data = net.to_dict()
    data["bias"][0] = float("inf")
    with pytest.raises(ModelFileError, match="finite"):
        ValueNet.from_dict(data)


def test_the_bundled_net_prefers_winning_material_and_feeds_the_value_family():
    net = bundled_value_net()
    assert net is not None
    board = chess.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")  # the rook takes the undefended queen
    position = position_of(board)
    found = Evidence(families=("move", "value"), sources=EvidenceSources(value_net=net)).features(position)
    best = position.moves[int(np.argmax(found["value_best"]))]
    assert best == chess.Move.from_uci("d1d5")
    assert found["value_loss"].min() == 0.0 and found["value_loss"].max() > 3.0


def test_a_ranker_records_its_value_net_and_refuses_another(botvinnik_games):
    ranker = MoveRanker(families=("move", "value"), max_positions=40, prior="none").fit(
        first_training_games(botvinnik_games, 4)
    )
    data = ranker.to_dict()
    assert data["value_net"] == bundled_value_net().fingerprint
    again = MoveRanker.from_dict(data)
    board = chess.Board()
    assert again.predict_proba(board) == pytest.approx(ranker.predict_proba(board))
    data["value_net"] = "0" * 16
    with pytest.raises(ModelFileError, match="another value network"):
        MoveRanker.from_dict(data)
