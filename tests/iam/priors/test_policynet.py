"""The policy network.

Inputs against python-chess, fitting recovers a known taste, files, leave-one-out, the bundled nets.
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

from iam.errors import ModelFileError
from iam.evidence.evidence import Evidence, EvidenceSources
from iam.evidence.movefeatures import move_features
from iam.measure.evaluation import first_training_games
from iam.priors.policynet import (
    POLICY_INPUTS,
    PolicyNets,
    bundled_policy_nets,
    fit_policy_net,
    policy_features,
    policy_inputs,
    policy_table,
)
from iam.priors.positions import player_positions, position_of
from iam.priors.valuenet import BOARD_INPUTS, VALUE_MOVE_INPUTS, board_inputs
from iam.ranker import MoveRanker


@pytest.mark.parametrize(
    "fen",
    [
        chess.STARTING_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",  # en passant, Black to move
        "8/2P5/8/8/8/8/5k1p/K7 b - - 0 1",  # promotions, Black to move
    ],
)
def test_inputs_are_the_board_after_plus_the_moved_piece_on_both_squares(fen):
    board = chess.Board(fen)
    moves = list(board.legal_moves)
    inputs = policy_inputs(board, moves)
    after = board_inputs(board, moves)
    assert inputs.shape == (len(moves), POLICY_INPUTS)
    for row, move in enumerate(moves):
        seen = lambda square: square if board.turn == chess.WHITE else chess.square_mirror(square)  # noqa: E731
        moved = board.piece_type_at(move.from_square)
        arriving = move.promotion or moved
        expected = sorted(after[row].indices.tolist()) + [
            BOARD_INPUTS + (moved - 1) * 64 + seen(move.from_square),
            BOARD_INPUTS + 384 + (arriving - 1) * 64 + seen(move.to_square),
        ]
        assert sorted(inputs[row].indices.tolist()) == sorted(expected)


def test_mirrored_moves_of_white_and_black_share_inputs():
    white = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")
    black = chess.Board("4k3/4p3/8/8/8/8/8/4K3 b - - 0 1")
    a = policy_inputs(white, [chess.Move.from_uci("e2e4")])
    b = policy_inputs(black, [chess.Move.from_uci("e7e5")])
    assert sorted(a.indices.tolist()) == sorted(b.indices.tolist())


def test_features_are_log_beliefs_and_their_ranks():
    found = policy_features(np.log(np.array([0.2, 0.5, 0.3])))
    assert np.exp(found["policy_log_belief"]).sum() == pytest.approx(1.0)
    assert found["policy_best"].tolist() == [0.0, 1.0, 0.0]
    assert found["policy_rank"].tolist() == pytest.approx(np.log1p([2, 0, 1]).tolist())


@pytest.fixture(scope="module")
def taste_table(botvinnik_games):
    """Positions where the 'master' always plays his knight to f3 (mover's view) when he can, else the best exchange."""
    positions = player_positions(first_training_games(botvinnik_games, 10), sample=200, random_state=0)
    rows = []
    for position in positions:
        columns = move_features(position)
        flip = 0 if position.board.turn else 56
        taste = np.array(
            [
                position.board.piece_type_at(m.from_square) == chess.KNIGHT and (m.to_square ^ flip) == chess.F3
                for m in position.moves
            ],
            dtype=float,
        ) * 10 + columns["exchange_gain"] - columns["exchange_loss"]
        rows.append(
            (
                policy_inputs(position.board, position.moves),
                np.column_stack([columns[n] for n in VALUE_MOVE_INPUTS]),
                int(np.argmax(taste)),
            )
        )
    return policy_table(rows)


def _top1(net, table) -> float:
    scores = net.values(table.boards, table.moves)
    return float(
        np.mean([a + np.argmax(scores[a:b]) == p for a, b, p in zip(table.starts[:-1], table.starts[1:], table.played)])
    )


def test_fitting_learns_a_taste_the_inputs_can_express(taste_table):
    net = fit_policy_net(taste_table, hidden=16, epochs=80, batch_positions=32, learning_rate=1e-2, random_state=0)
    untrained = fit_policy_net(taste_table, hidden=16, epochs=0, random_state=0)
    assert _top1(net, taste_table) > 0.8
    assert _top1(net, taste_table) > _top1(untrained, taste_table) + 0.3
    again = fit_policy_net(taste_table, hidden=16, epochs=80, batch_positions=32, learning_rate=1e-2, random_state=0)
    assert again.fingerprint == net.fingerprint  # seeded: the same fit twice


def test_networks_survive_their_file_choose_the_one_that_left_the_player_out_and_refuse_damage(taste_table, tmp_path):
    everyone = fit_policy_net(taste_table, hidden=4, epochs=1, random_state=0)
    without = fit_policy_net(taste_table, hidden=4, epochs=1, random_state=1)
    nets = PolicyNets(nets={None: everyone, "Botvinnik, Mikhail": without})
    path = tmp_path / "nets.json.gz"
    nets.save(path)
    again = PolicyNets.load(path)
    assert again.for_player("Botvinnik")[0] == "Botvinnik, Mikhail"
    assert again.for_player("Tal, Mikhail") == (None, again.nets[None])
    position = position_of(chess.Board())
    columns = move_features(position)
    # weights kept to 6 digits
    for saved, fitted in ((again.nets[None], everyone), (again.for_player("Botvinnik")[1], without)):
        assert np.allclose(saved.log_beliefs(position, columns), fitted.log_beliefs(position, columns), atol=1e-4)
    assert not np.allclose(everyone.log_beliefs(position, columns), without.log_beliefs(position, columns), atol=1e-4)
    data = nets.to_dict()
    data["nets"] = data["nets"][1:]
    with pytest.raises(ModelFileError, match="all masters"):
        PolicyNets.from_dict(data)
    data = nets.to_dict()
    data["inputs"]["board"] = BOARD_INPUTS
    with pytest.raises(ModelFileError, match="inputs"):
        PolicyNets.from_dict(data)
    data = nets.to_dict()
    data["nets"][0]["hidden"]["shape"][1] -= 1
    with pytest.raises(ModelFileError, match="as many numbers"):
        PolicyNets.from_dict(data)
    data = nets.to_dict()
    data["nets"][0]["hidden"]["float16"] = "not base64!"
    with pytest.raises(ModelFileError, match="malformed"):
        PolicyNets.from_dict(data)
    data = nets.to_dict()
    data["nets"][0]["output"] = data["nets"][0]["output"][:-1]
    with pytest.raises(ModelFileError, match="do not fit together"):
        PolicyNets.from_dict(data)


def test_the_bundled_networks_leave_out_each_master_and_never_saw_test_games():
    nets = bundled_policy_nets()
    assert nets is not None
    assert set(nets.nets) == {None, *nets.info["masters"]}
    assert len(nets.info["masters"]) == 6 and nets.info["games"] == "fitting"
    assert nets.info["sides"] == ["own", "opponents"]  # his opponents' moves too
    everyone = nets.nets[None].info["positions"]
    assert everyone == sum(n for sides in nets.info["masters"].values() for n in sides.values())
    assert all(net.info["positions"] < everyone for without, net in nets.nets.items() if without is not None)
    fingerprints = {net.fingerprint for net in nets.nets.values()}
    assert len(fingerprints) == 7
    board = chess.Board()
    found = Evidence(families=("move", "policy"), sources=EvidenceSources(policy_net=nets.nets[None])).features(
        position_of(board)
    )
    best = position_of(board).moves[int(np.argmax(found["policy_log_belief"]))]
    assert best.uci() in {"e2e4", "d2d4", "c2c4", "g1f3"}  # what masters open with


def test_a_ranker_of_a_bundled_master_reads_the_network_without_him_and_refuses_another(botvinnik_games):
    ranker = MoveRanker(families=("move", "policy"), max_positions=40, prior="none").fit(
        first_training_games(botvinnik_games, 4)
    )
    data = ranker.to_dict()
    without, net = bundled_policy_nets().for_player(ranker.player_)
    assert without is not None and "Botvinnik" in without
    assert data["policy_net"] == {"without": without, "fingerprint": net.fingerprint}
    assert ranker.evidence.sources.policy_net is net
    again = MoveRanker.from_dict(data)
    assert again.predict_proba(chess.Board()) == pytest.approx(ranker.predict_proba(chess.Board()))
    data["policy_net"]["fingerprint"] = "0" * 16
    with pytest.raises(ModelFileError, match="other policy networks"):
        MoveRanker.from_dict(data)


def test_networks_reading_positions_in_turn_each_get_that_positions_inputs():
    """The inputs of recent positions are kept for the next network; they must never be another position's."""
    net = bundled_policy_nets().nets[None]
    start = position_of(chess.Board())
    after = chess.Board()
    after.push_san("e4")
    reply = position_of(after)
    direct = {}
    for position in (start, reply):
        columns = move_features(position)
        scores = net.values(
            policy_inputs(position.board, position.moves), np.column_stack([columns[n] for n in VALUE_MOVE_INPUTS])
        )
        direct[position.board.fen()] = scores - scores.max() - np.log(np.exp(scores - scores.max()).sum())
    for position in (start, reply, start, reply):
        assert np.allclose(net.log_beliefs(position, move_features(position)), direct[position.board.fen()])
