"""The policy networks' training data: both sides of the masters' games, and leaving one out.

The networks learn masters' taste from moves masters and their opponents (mostly
masters too) chose. Each side of each game is taken once, however many masters' files
hold the game. A network meant for master M must never see him: :func:`leave_out`
drops every game of M's file (any split) and every move of a side that bears his name,
which also catches his moves as another master's opponent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sparse

from iam.evidence.movefeatures import move_features
from iam.games.pgn import PlayerGame, name_matches
from iam.games.player_games import game_key
from iam.priors.movenet import position_slices
from iam.priors.policynet import PolicyTable, policy_inputs, policy_table
from iam.priors.positions import PlayerPosition, player_positions
from iam.priors.valuenet import VALUE_MOVE_INPUTS
from iam.runtime import Runtime, run_map

__all__ = ["SIDES", "MasterSide", "join_tables", "leave_out", "policy_rows", "side_positions", "table_of"]

SIDES = ("own", "opponents")
"""Whose moves a master's file gives: his own, his opponents'."""


def policy_rows(positions: Sequence[PlayerPosition]) -> list[tuple]:
    """(policy inputs, move inputs, played index) of each labelled position with legal moves."""
    rows = []
    for position in positions:
        if not position.moves or position.played < 0:
            continue
        columns = move_features(position)
        rows.append(
            (
                policy_inputs(position.board, position.moves),
                np.column_stack([columns[n] for n in VALUE_MOVE_INPUTS]),
                position.played,
            )
        )
    return rows


def table_of(
    positions: Sequence[PlayerPosition], runtime: Runtime = Runtime()
) -> tuple[PolicyTable, list[PlayerPosition]]:
    """The table of the labelled ``positions`` (computed where ``runtime`` says) and the positions in its row order."""
    kept = [position for position in positions if position.moves and position.played >= 0]
    parts = runtime.workers * 4
    pieces = [kept[start::parts] for start in range(parts)]
    done = run_map(policy_rows, pieces, runtime)
    return policy_table([row for part in done for row in part]), [position for piece in pieces for position in piece]


def join_tables(tables: Sequence[PolicyTable]) -> PolicyTable:
    """One table holding the positions of ``tables`` in turn."""
    offsets = np.cumsum([0] + [len(t.moves) for t in tables])
    return PolicyTable(
        boards=sparse.vstack([t.boards for t in tables], format="csr"),
        moves=np.concatenate([t.moves for t in tables]),
        starts=np.concatenate([t.starts[:-1] + o for t, o in zip(tables, offsets)] + [[offsets[-1]]]).astype(np.int64),
        played=np.concatenate([t.played + o for t, o in zip(tables, offsets)]).astype(np.int64),
    )


@dataclass(frozen=True)
class MasterSide:
    """One side of one master's games: the table, and whose game and move each position is."""

    master: str
    side: str
    """``"own"`` or ``"opponents"``."""
    table: PolicyTable
    games: list[tuple]
    """Each position's game key (:func:`iam.games.player_games.game_key`)."""
    movers: list[str]
    """The name of the side to move in each position."""


def side_positions(
    master: str,
    side: str,
    games: Sequence[PlayerGame],
    seen: set,
    *,
    sample: int | None = None,
    random_state: int = 0,
    runtime: Runtime = Runtime(),
) -> MasterSide:
    """``side``'s positions in ``master``'s ``games`` (all, or a seeded sample of ``sample``).

    ``seen`` holds the (game key, colour) pairs already taken from other files; pairs
    taken here are added to it, so a game two files share gives each side once. The table is computed where
    ``runtime`` says.
    """
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, got {side!r}")
    chosen, about = [], {}
    for game in games:
        color = game.color if side == "own" else not game.color
        key = game_key(game)
        if (key, color) in seen:
            continue
        seen.add((key, color))
        chosen.append(replace(game, color=color))
        about[game.index] = (key, game.white if color else game.black)
    table, order = table_of(player_positions(chosen, sample=sample, random_state=random_state), runtime)
    return MasterSide(master, side, table, [about[p.game][0] for p in order], [about[p.game][1] for p in order])


def leave_out(side: MasterSide, master: str | None, his_games: Sequence[PlayerGame] = ()) -> PolicyTable:
    """``side``'s table less every game in ``his_games`` (``master``'s file).

    Every move of a side named ``master`` is left out too.
    """
    if master is None:
        return side.table
    his = {game_key(game) for game in his_games}
    keep = np.flatnonzero(
        [key not in his and not name_matches(master, mover) for key, mover in zip(side.games, side.movers)]
    )
    rows, starts = position_slices(side.table.starts, keep)
    within = (side.table.played - side.table.starts[:-1])[keep]
    return PolicyTable(
        boards=side.table.boards[rows], moves=side.table.moves[rows], starts=starts, played=starts[:-1] + within
    )
