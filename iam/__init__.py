"""IAM: the Inductive Adversary Modeler, re-created.

Learns a specific chess player's habits (visual chunks and rote-memorised openings)
from their games and predicts their next move with a calibrated belief.

What a notebook user calls is here, at the package's face: read a player's games, the
two models of him, load a model file of either kind, measure, prepare, identify.
Each name is imported when first used, so ``import iam`` stays cheap (the UCI engine
starts from it)::

    from iam import MoveRanker, OpponentModel, evaluate, identify, load_heldout, load_player_games

A dossier is :func:`iam.prepare.prepare` (``iam.prepare`` is the package; its config and
result, :class:`PrepareConfig` and :class:`Dossier`, are here too).

The sub-packages are the layers, bottom first: :mod:`iam.games` (reading and choosing
games), :mod:`iam.engines` (UCI engine analysis), :mod:`iam.models` (what both models
share), :mod:`iam.chunks` (the IAM chunk model), :mod:`iam.priors` and
:mod:`iam.evidence` (what the move ranker knows and reads), :mod:`iam.ranker`,
:mod:`iam.prepare` and :mod:`iam.measure`; :mod:`iam.cli` is the command line on top.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from iam._install import __version__
from iam._install import check_chess as _check_chess

if TYPE_CHECKING:  # the same names, for type checkers and readers
    from iam.chunks.model import OpponentModel
    from iam.games.bundled import default_pgn
    from iam.games.pgn import IngestReport, PlayerGame, load_player_games
    from iam.games.player_games import HeldOut, load_heldout
    from iam.measure.evaluation import EvaluationReport, evaluate
    from iam.measure.identify import Identification, identify
    from iam.measure.predictors import load_predictor
    from iam.models.explanation import Explanation
    from iam.prepare.dossier import Dossier, PrepareConfig
    from iam.ranker.estimator import MoveRanker
    from iam.runtime import Runtime

_PUBLIC = {
    "load_player_games": "iam.games.pgn",
    "PlayerGame": "iam.games.pgn",
    "IngestReport": "iam.games.pgn",
    "load_heldout": "iam.games.player_games",
    "HeldOut": "iam.games.player_games",
    "default_pgn": "iam.games.bundled",
    "OpponentModel": "iam.chunks.model",
    "MoveRanker": "iam.ranker.estimator",
    "Runtime": "iam.runtime",
    "Explanation": "iam.models.explanation",
    "load_predictor": "iam.measure.predictors",
    "evaluate": "iam.measure.evaluation",
    "EvaluationReport": "iam.measure.evaluation",
    "identify": "iam.measure.identify",
    "Identification": "iam.measure.identify",
    "PrepareConfig": "iam.prepare.dossier",
    "Dossier": "iam.prepare.dossier",
}
"""Public name -> the module that defines it."""

__all__ = [
    "__version__",
    "load_player_games",
    "PlayerGame",
    "IngestReport",
    "load_heldout",
    "HeldOut",
    "default_pgn",
    "OpponentModel",
    "MoveRanker",
    "Runtime",
    "Explanation",
    "load_predictor",
    "evaluate",
    "EvaluationReport",
    "identify",
    "Identification",
    "PrepareConfig",
    "Dossier",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'iam' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


_check_chess()
