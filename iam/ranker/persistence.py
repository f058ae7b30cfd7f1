"""A move ranker's file format: what a fitted ranker writes, and the checks it is read back with.

A model file is versioned JSON (:mod:`iam.models.files`); every number read back is checked
against bounds a fitted ranker never leaves, so a damaged file is a clear
:class:`~iam.errors.ModelFileError` and never a model whose beliefs overflow.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np
from sklearn.utils.validation import check_is_fitted

from iam.chunks.fitted import from_document, to_document
from iam.chunks.model import OpponentModel
from iam.errors import ModelFileError
from iam.evidence.registry import ENGINE_FAMILIES, family_columns
from iam.priors.patterns import MovePatterns, PatternCounts
from iam.priors.policynet import require_policy_net
from iam.priors.population import PopulationBook
from iam.priors.trees import ResidualTrees
from iam.priors.valuenet import bundled_value_net
from iam.ranker.calibration import TopLabelCalibration
from iam.runtime import Runtime
from search.chess.replies import ReplyPolicy

__all__ = ["RANKER_FORMAT", "RANKER_VERSION", "ranker_document", "ranker_from_document", "policy_record"]

RANKER_FORMAT = "iam-move-ranker"
RANKER_VERSION = 4
_READABLE_VERSIONS = (3, 4)
"""Version 3 files hold no residual trees."""
_SAVED_PARAMS = (
    "families",
    "search_depth",
    "engine_depth",
    "max_positions",
    "folds",
    "prior",
    "prior_strength",
    "trees",
    "min_games",
    "random_state",
    "player",
)
_OPTIONAL_PARAMS = {"reply_positions": 0}
"""Parameters newer than the file versions above: a file without one gets this value."""
_MAX_WEIGHT = 1e6
_MAX_BOOK_COUNT = 10**7
_MAX_PATTERN_COUNT = 10**9


def ranker_document(model) -> dict:
    """The JSON-ready content of a fitted ranker (its IAM model included)."""
    check_is_fitted(model, "coef_")
    return {
        "format": RANKER_FORMAT,
        "version": RANKER_VERSION,
        "params": {name: getattr(model, name) for name in (*_SAVED_PARAMS, *_OPTIONAL_PARAMS)},
        "player": model.player_,
        "training": {
            "games": model.n_games_,
            "positions": model.n_positions_,
            "log_loss": model.training_log_loss_,
            "temperature": model.temperature_,
            "top_calibration": model.top_calibration_.to_list(),
        },
        "families": list(model.families_),
        "weights": model.weights(),
        "prior_weights": dict(zip(model.feature_names_, model.prior_weights_.tolist())),
        "scale": dict(zip(model.feature_names_, model.scale_.tolist())),
        "book": model.book_.masters,
        "patterns": {
            "population": model.population_patterns_.pooled.to_dict(),
            "own": model.own_patterns_.to_dict() if model.own_patterns_ is not None else None,
        },
        "iam": to_document(model.iam_.state_) if model.iam_ is not None else None,
        "trees": model.trees_.to_dict() if model.trees_ is not None else None,
        "value_net": model.value_net_,
        "policy_net": model.policy_net_,
        "reply_policy": None if model.reply_policy_ is None else {"weights": model.reply_policy_.weights.tolist()},
    }

def ranker_from_document(cls: type, data: dict, *, source: str = "model", runtime: Runtime | None = None):
    """A fitted ranker of class ``cls`` from :func:`ranker_document`'s content; ModelFileError if it is not one.

    A file never names a program to run: a ranker with engine evidence needs the
    engine's path from the caller (``runtime``), and is refused without it.
    """
    try:
        model = cls(**_params(data, source, runtime))
        families = model._check_parameters()
        if list(families) != list(data["families"]):
            raise ValueError("its families do not match its parameters")
        model.families_ = families
        model.feature_names_ = tuple(name for family in families for name in family_columns(family))
        _read_weights(model, data)
        _read_memories(model, data, source)
        if "policy" in families and model.policy_net_ != policy_record(families, model.player_):
            raise ModelFileError(f"{source} was fitted with other policy networks than the ones installed (refit it)")
        model.use(runtime)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelFileError(f"{source} is malformed: {detail}") from None
    return model


def _params(data: dict, source: str, runtime: Runtime | None) -> dict:
    """The ranker's parameters from a document of a readable version (ModelFileError for another kind of file)."""
    if not isinstance(data, dict) or data.get("format") != RANKER_FORMAT:
        raise ModelFileError(f"{source} is not a move ranker model")
    if isinstance(data.get("version"), bool) or data.get("version") not in _READABLE_VERSIONS:
        raise ModelFileError(
            f"{source} has version {data.get('version')!r}; "
            f"this program reads versions {' and '.join(map(str, _READABLE_VERSIONS))}"
        )
    saved = dict(data["params"], trees=False) if data["version"] == 3 else data["params"]
    params = {name: saved[name] for name in _SAVED_PARAMS}
    params.update({name: saved.get(name, default) for name, default in _OPTIONAL_PARAMS.items()})
    params["families"] = tuple(params["families"])
    if any(family in params["families"] for family in ENGINE_FAMILIES) and not (runtime and runtime.engine):
        raise ModelFileError(f"{source} uses engine evidence: name the engine program to run it with")
    return params


def _read_weights(model, data: dict) -> None:
    """The fitted weights, the training summary and the calibration, each checked against its bounds."""
    names = model.feature_names_
    model.coef_ = _vector(data["weights"], names, "weights")
    model.prior_weights_ = _vector(data["prior_weights"], names, "prior weights")
    model.scale_ = _vector(data["scale"], names, "scale")
    model.player_ = str(data["player"])
    training = data["training"]
    model.n_games_ = int(training["games"])
    model.n_positions_ = int(training["positions"])
    model.training_log_loss_ = float(training["log_loss"] if training["log_loss"] is not None else "nan")
    model.temperature_ = float(training["temperature"])
    if not 1 / _MAX_WEIGHT <= model.temperature_ <= _MAX_WEIGHT:
        raise ValueError(f"its temperature must be a positive number from {1 / _MAX_WEIGHT:g} to {_MAX_WEIGHT:g}")
    slope, offset = (float(value) for value in training["top_calibration"])
    if not (0 < slope <= _MAX_WEIGHT and abs(offset) <= _MAX_WEIGHT):
        raise ValueError(
            f"its top-label calibration must be a positive slope and an offset of at most {_MAX_WEIGHT:g} in size"
        )
    model.top_calibration_ = TopLabelCalibration(slope, offset)
    model.trees_ = None if data.get("trees") is None else ResidualTrees.from_dict(data["trees"])
    if model.trees_ is not None and not set(model.trees_.columns) <= set(names):
        raise ValueError("its residual trees split on columns its families do not have")


def _read_memories(model, data: dict, source: str) -> None:
    """What the ranker remembers of players: the book, the move patterns, his IAM model, the networks it read."""
    families = model.families_
    model.book_ = PopulationBook(_book(data["book"]))
    model.population_patterns_ = MovePatterns({"population": _patterns(data["patterns"]["population"])})
    own = data["patterns"]["own"]
    model.own_patterns_ = None if own is None else _patterns(own)
    if "habits" in families and model.own_patterns_ is None:
        raise ValueError("the habits family needs the player's move patterns, which are missing")
    model.iam_ = (
        None
        if data["iam"] is None
        else OpponentModel.from_state(from_document(data["iam"], source=f"{source} (its IAM model)"))
    )
    if "habits" in families and model.iam_ is None:
        raise ValueError("the habits family needs the IAM model, which is missing")
    model.value_net_ = data["value_net"]
    if "value" in families:
        _check_value_net(model.value_net_, source)
    replies = data.get("reply_policy")
    model.reply_policy_ = None if replies is None else ReplyPolicy(replies["weights"])
    model.policy_net_ = data.get("policy_net")


def _vector(values: dict, names: Sequence[str], what: str) -> np.ndarray:
    """A finite weight vector in ``names``' order from a name -> number mapping."""
    if not isinstance(values, dict) or set(values) != set(names):
        raise ValueError(f"its {what} do not name exactly the features of its families")
    vector = np.array([values[name] for name in names], dtype=np.float64)
    if not np.all(np.isfinite(vector)) or np.any(np.abs(vector) > _MAX_WEIGHT):
        raise ValueError(f"its {what} must be finite numbers of at most {_MAX_WEIGHT:g} in size")
    return vector


def _book(masters: dict) -> dict[str, dict[str, dict[str, int]]]:
    """A population book's tables with every key and count checked (moves must be UCI text)."""
    checked = {}
    for name, table in masters.items():
        entries = {}
        for epd, moves in table.items():
            counts = {chess.Move.from_uci(str(move)).uci(): int(count) for move, count in moves.items()}
            if any(not 0 <= count <= _MAX_BOOK_COUNT for count in counts.values()):
                raise ValueError(f"its book counts must be whole numbers from 0 to {_MAX_BOOK_COUNT}")
            entries[str(epd)] = counts
        checked[str(name)] = entries
    return checked


def policy_record(families: Sequence[str], player: str) -> dict | None:
    """What a model file records of its policy network: whom it left out and its fingerprint."""
    if "policy" not in families:
        return None
    without, net = require_policy_net(player)
    return {"without": without, "fingerprint": net.fingerprint}


def _check_value_net(fingerprint: object, source: str) -> None:
    """ModelFileError unless the installed value network is the one the model was fitted with."""
    installed = bundled_value_net()
    if installed is None or installed.fingerprint != fingerprint:
        raise ModelFileError(f"{source} was fitted with another value network than the one installed (refit it)")


def _patterns(data: dict) -> PatternCounts:
    """Move pattern counts from a model file, every count a whole number of bounded size."""
    if not isinstance(data, dict) or any(not isinstance(v, list) for v in data.values()):
        raise ValueError("its move patterns must be lists of counts")
    values = [item for key in ("cells", "played", "legal") for item in data.get(key, [])]
    if any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _MAX_PATTERN_COUNT for v in values):
        raise ValueError(f"its move pattern counts must be whole numbers from 0 to {_MAX_PATTERN_COUNT}")
    return PatternCounts.from_dict(data)
