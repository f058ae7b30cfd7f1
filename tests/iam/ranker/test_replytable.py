"""The cheap reply policy distilled from a teacher's beliefs."""

from __future__ import annotations

import numpy as np
import pytest

from iam.priors.positions import player_positions
from iam.ranker.replytable import distil_reply_policy, reply_table, teacher_targets
from search.chess.board import Position, to_move
from search.chess.replies import REPLY_INPUTS, ReplyPolicy


class PolicyTeacher:
    """A teacher whose beliefs are a reply policy's: the distilled policy can copy it exactly."""

    def __init__(self, policy: ReplyPolicy) -> None:
        self.policy = policy

    def predict_proba(self, board) -> dict:
        beliefs = self.policy.position_beliefs(Position.from_board(board))
        return {to_move(move): belief for move, belief in beliefs.items()}


@pytest.fixture(scope="module")
def positions(botvinnik_games):
    return player_positions(botvinnik_games[:40], sample=300, random_state=0)


def test_targets_mix_the_teachers_beliefs_with_the_move_played(positions):
    teacher = PolicyTeacher(ReplyPolicy(np.zeros(REPLY_INPUTS)))  # uniform over the legal moves
    table = reply_table(positions)
    mixed = teacher_targets(positions, teacher, share=0.25)
    assert mixed.shape == (len(table.features.toarray()),)
    first = slice(table.starts[0], table.starts[1])
    size = table.starts[1] - table.starts[0]
    expected = np.full(size, 0.25 / size)
    expected[table.played[0] - table.starts[0]] += 0.75
    np.testing.assert_allclose(mixed[first], expected)
    np.testing.assert_allclose(np.add.reduceat(mixed, table.starts[:-1]), 1.0)
    with pytest.raises(ValueError):
        teacher_targets(positions, teacher, share=1.5)


def test_a_policy_distilled_from_a_policy_teacher_names_the_teachers_moves(positions):
    rng = np.random.default_rng(0)
    weights = rng.normal(scale=1.5, size=REPLY_INPUTS)
    teacher = PolicyTeacher(ReplyPolicy(weights))
    student = distil_reply_policy(positions, teacher, share=1.0, penalty=1e-3)
    agree = 0
    for position in positions[:100]:
        fast = Position.from_board(position.board)
        wanted, got = teacher.policy.position_beliefs(fast), student.position_beliefs(fast)
        agree += max(wanted, key=wanted.get) == max(got, key=got.get)
    assert agree >= 90
    played = distil_reply_policy(positions, teacher, share=0.0)  # the moves played only: another policy
    assert not np.allclose(played.weights, student.weights, atol=0.1)
