"""Judge depth: how far the toolkit's own search at each depth agrees with a reference engine on the dossier's verdicts.

On the development games of the bundled masters (never their test games), positions of
their first plies where the master is to move, each with his move and one other legal
move (:func:`~iam.prepare.agreement.judged_moves`), are judged by a UCI engine at a high
depth and by the own search at each depth (:func:`~iam.prepare.agreement.judge_losses`);
:func:`~iam.prepare.agreement.agreement` sums the verdicts up per depth, and
:func:`~iam.prepare.agreement.choose_depth` applies the rule the dossier's default search
depth is chosen by (:data:`RULE`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from experiments.common import ExperimentConfig, ExperimentResult
from iam.errors import DataError
from iam.games.bundled import bundled_pgn, manifest
from iam.games.pgn import load_player_games
from iam.prepare.agreement import agreement, choose_depth, judge_losses, judged_moves
from iam.prepare.dossier import MODEL_PLIES, HabitSettings, ScoringSettings
from iam.prepare.scoring import EngineScorer

NAME = "judge-depth"
HELP = "how far the toolkit's own search at each depth agrees with a reference engine on a move's loss"

__all__ = ["NAME", "HELP", "JudgeDepthConfig", "RULE", "judge_depth", "run"]

RULE = {"max_seconds": 0.5, "precision_margin": 0.02, "recall_margin": 0.05}
"""The rule's settings (:func:`~iam.prepare.agreement.choose_depth`): a median search of at most half a CPU second per
position, precision within 2 points and recall within 5 points of the best such depth's."""


@dataclass(frozen=True)
class JudgeDepthConfig(ExperimentConfig):
    """Whose development positions, how many, which depths, and the reference (the ``runtime``'s engine)."""

    players: tuple[str, ...] = ()
    """Bundled masters (empty: all of them)."""
    positions: int = 50
    """Positions per master (each judged with two moves)."""
    plies: int = MODEL_PLIES
    depths: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    reference_depth: int = 16
    habit_loss: int = HabitSettings().habit_loss


def judge_depth(config: JudgeDepthConfig) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-move losses (:func:`~iam.prepare.agreement.judge_losses`, all masters) and their agreement table.

    DataError without an engine in ``config.runtime``, or for a depth below 1.
    """
    engine = config.runtime.engine
    if not engine:
        raise DataError("the judge-depth experiment needs a reference engine")
    if min(config.depths, default=0) < 1 or config.positions < 1 or config.reference_depth < 1:
        raise DataError("depths, positions and the reference depth must be at least 1")
    players = config.players or tuple(entry.player for entry in manifest())
    moves = []
    for player in players:
        games, _ = load_player_games([bundled_pgn(player)], player=player)
        moves += judged_moves(games, player, positions=config.positions, plies=config.plies, seed=config.seed)
    reference = EngineScorer(
        engine,
        depth=config.reference_depth,
        cache=config.runtime.engine_cache,
        lines=ScoringSettings().engine_lines,
    )
    try:
        losses = judge_losses(moves, reference, config.depths)
    finally:
        reference.close()
    return losses, agreement(losses, habit_loss=config.habit_loss)


def run(config: JudgeDepthConfig) -> ExperimentResult:
    """Tables ``judge_losses`` (one row per judged move) and ``judge_agreement`` (one row per depth and set of
    moves), the depth :data:`RULE` picks, and a summary."""
    losses, table = judge_depth(config)
    chosen = choose_depth(table, **RULE)
    payload = {
        "experiment": NAME,
        "players": sorted(set(losses["player"])),
        "reference_depth": config.reference_depth,
        "habit_loss": config.habit_loss,
        "seed": config.seed,
        "rule": RULE,
        "chosen_depth": chosen,
        "rows": table.to_dict(orient="records"),
    }
    markdown = "\n".join(
        [
            "# The own search against the reference engine, per depth",
            "",
            f"{table['positions'].iloc[0]} development positions of {', '.join(payload['players'])}; "
            f"reference at depth {config.reference_depth}; costly: a loss of at least {config.habit_loss} cp. "
            f"The rule picks depth {chosen}.",
            "",
            table.to_markdown(index=False, floatfmt=".3f"),
        ]
    )
    return ExperimentResult(
        name=NAME, tables={"judge_losses": losses, "judge_agreement": table}, payload=payload, markdown=markdown + "\n"
    )
