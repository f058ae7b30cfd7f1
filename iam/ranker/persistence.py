"""A move ranker's file format: what a fitted ranker writes, and the checks it is read back with.

A model file is versioned JSON (:mod:`iam.models.files`); every number read back is checked
against bounds a fitted ranker never leaves, so a damaged file is a clear
:class:`~iam.errors.ModelFileError` and never a model whose beliefs overflow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import chess
import numpy as np
from sklearn.utils.validation import check_is_fitted

from iam.chunks.fitted import from_document, to_document
from iam.chunks.model import OpponentModel
from iam.errors import ModelFileError
from iam.evidence.registry import ENGINE_FAMILIES, family_columns
from iam.games.digest import TrainingGames
from iam.priors.patterns import MovePatterns, PatternCounts
from iam.priors.policynet import require_policy_net
from iam.priors.population import PopulationBook, PopulationPrior
from iam.priors.trees import ResidualTrees
from iam.priors.valuenet import bundled_value_net
from iam.ranker.calibration import TopLabelCalibration
from iam.ranker.fitted import RankerMemories, RankerScoring, RankerState, RankerTraining
from iam.runtime import Runtime
from search.chess.replies import ReplyPolicy

__all__ = [
    "RANKER_FORMAT",
    "RANKER_VERSION",
    "ranker_document",
    "ranker_from_document",
    "policy_record",
    "saved_params",
]

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
"""The parameters a model file records, in its order: the estimator's, with its ``prior`` as two, the prior
(``"population"`` for any population, given or bundled, or ``"none"``) and ``trees`` (whether its residual trees
were wanted), and the player's name given to ``fit`` (None when it was inferred)."""
_OPTIONAL_PARAMS = {"reply_positions": 0}
"""Parameters newer than the file versions above: a file without one gets this value."""
_ESTIMATOR_PARAMS = (
    "families", "search_depth", "engine_depth", "max_positions", "folds", "prior_strength", "min_games", "random_state",
)
"""The recorded parameters that are the estimator's own as they stand (with ``reply_positions``)."""
_LINEAR = "population-linear"
"""The estimator's prior without the population's residual trees."""
_MAX_WEIGHT = 1e6
_MAX_BOOK_COUNT = 10**7
_MAX_PATTERN_COUNT = 10**9


def saved_params(model, player: str | None) -> dict[str, Any]:
    """The parameters a model file records for ``model`` fitted with ``player`` (its name given to ``fit``)."""
    params = {name: getattr(model, name) for name in (*_ESTIMATOR_PARAMS, *_OPTIONAL_PARAMS)}
    params["player"] = player
    prior = model.prior
    if isinstance(prior, PopulationPrior):
        params.update(prior="population", trees=any(weights.trees is not None for weights in prior.rankers))
    else:
        params.update(prior="none" if prior == "none" else "population", trees=prior != _LINEAR)
    return {name: params[name] for name in (*_SAVED_PARAMS, *_OPTIONAL_PARAMS)}


def ranker_document(model) -> dict:
    """The JSON-ready content of a fitted ranker (its IAM model included)."""
    check_is_fitted(model, "coef_")
    state: RankerState = model.state_
    training, scoring, memories = state.training, state.scoring, state.memories
    names = scoring.feature_names
    return {
        "format": RANKER_FORMAT,
        "version": RANKER_VERSION,
        "params": dict(state.params),
        "player": state.player,
        "training": {
            "games": training.n_games,
            "positions": training.n_positions,
            "log_loss": training.training_log_loss,
            "blunder_rate": training.blunder_rate,
            **({} if training.blunder_check_depth is None else {"blunder_check_depth": training.blunder_check_depth}),
            "temperature": scoring.temperature,
            "top_calibration": scoring.top_calibration.to_list(),
            **(training.training_games.to_dict() if training.training_games is not None else {}),
        },
        "families": list(scoring.families),
        "weights": dict(zip(names, scoring.coef.tolist())),
        "prior_weights": dict(zip(names, scoring.prior_weights.tolist())),
        "scale": dict(zip(names, scoring.scale.tolist())),
        "book": memories.book.masters,
        "patterns": {
            "population": memories.population_patterns.pooled.to_dict(),
            "own": memories.own_patterns.to_dict() if memories.own_patterns is not None else None,
        },
        "iam": to_document(memories.iam.state_) if memories.iam is not None else None,
        "trees": scoring.trees.to_dict() if scoring.trees is not None else None,
        "value_net": memories.value_net,
        "policy_net": memories.policy_net,
        "reply_policy": None if memories.reply_policy is None else {"weights": memories.reply_policy.weights.tolist()},
    }

def ranker_from_document(cls: type, data: dict, *, source: str = "model", runtime: Runtime | None = None):
    """A fitted ranker of class ``cls`` from :func:`ranker_document`'s content; ModelFileError if it is not one.

    A file never names a program to run: a ranker with engine evidence needs the
    engine's path from the caller (``runtime``), and is refused without it.
    """
    try:
        saved = _params(data, source, runtime)
        model = cls(**_estimator_params(saved))
        families = model._check_parameters()
        if list(families) != list(data["families"]):
            raise ValueError("its families do not match its parameters")
        names = tuple(name for family in families for name in family_columns(family))
        scoring = _read_scoring(families, names, data)
        player = str(data["player"])
        training = _read_training(data["training"])
        memories = _read_memories(families, data, source)
        if "policy" in families and memories.policy_net != policy_record(families, player):
            raise ModelFileError(f"{source} was fitted with other policy networks than the ones installed (refit it)")
        model.state_ = RankerState(params=saved, player=player, training=training, scoring=scoring, memories=memories)
        model.use(runtime)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        detail = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ModelFileError(f"{source} is malformed: {detail}") from None
    return model


def _params(data: dict, source: str, runtime: Runtime | None) -> dict:
    """The recorded parameters of a document of a readable version (ModelFileError for another kind of file)."""
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


def _estimator_params(saved: dict) -> dict[str, Any]:
    """The estimator's parameters from the recorded ones (the player is ``fit``'s, the trees part of the prior)."""
    params = {name: saved[name] for name in (*_ESTIMATOR_PARAMS, *_OPTIONAL_PARAMS)}
    if not isinstance(saved["trees"], bool):
        raise ValueError(f"its trees must be true or false, not {saved['trees']!r}")
    if not isinstance(saved["player"], str | None):
        raise ValueError(f"its player must be a name or null, not {saved['player']!r}")
    linear = saved["prior"] == "population" and not saved["trees"]
    params["prior"] = _LINEAR if linear else saved["prior"]
    return params


def _read_training(training: dict) -> RankerTraining:
    """The training summary, as the file records it."""
    games = int(training["games"])
    return RankerTraining(
        n_games=games,
        n_positions=int(training["positions"]),
        training_log_loss=float(training["log_loss"] if training["log_loss"] is not None else "nan"),
        training_games=TrainingGames.from_dict(training, games=games),
        blunder_rate=_read_rate(training.get("blunder_rate")),
        blunder_check_depth=_read_depth(training.get("blunder_check_depth")),
    )


def _read_depth(value: object) -> int | None:
    """The depth of the check that measured his blunder rate (absent or null: the ranker's own search did)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"its blunder check depth must be a whole number from 1, not {value!r}")
    return value


def _read_rate(value: object) -> float | None:
    """His blunder rate as the file records it (absent or null: not measured); ValueError unless a share."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise ValueError(f"its blunder rate must be a share from 0 to 1 or null, not {value!r}")
    return float(value)


def _read_scoring(families: tuple[str, ...], names: tuple[str, ...], data: dict) -> RankerScoring:
    """The fitted weights and the calibration, each checked against its bounds, and the residual trees."""
    training = data["training"]
    temperature = float(training["temperature"])
    if not 1 / _MAX_WEIGHT <= temperature <= _MAX_WEIGHT:
        raise ValueError(f"its temperature must be a positive number from {1 / _MAX_WEIGHT:g} to {_MAX_WEIGHT:g}")
    slope, offset = (float(value) for value in training["top_calibration"])
    if not (0 < slope <= _MAX_WEIGHT and abs(offset) <= _MAX_WEIGHT):
        raise ValueError(
            f"its top-label calibration must be a positive slope and an offset of at most {_MAX_WEIGHT:g} in size"
        )
    trees = None if data.get("trees") is None else ResidualTrees.from_dict(data["trees"])
    if trees is not None and not set(trees.columns) <= set(names):
        raise ValueError("its residual trees split on columns its families do not have")
    return RankerScoring(
        families=families,
        feature_names=names,
        coef=_vector(data["weights"], names, "weights"),
        prior_weights=_vector(data["prior_weights"], names, "prior weights"),
        scale=_vector(data["scale"], names, "scale"),
        temperature=temperature,
        top_calibration=TopLabelCalibration(slope, offset),
        trees=trees,
    )


def _read_memories(families: tuple[str, ...], data: dict, source: str) -> RankerMemories:
    """What the ranker remembers of players: the book, the move patterns, his IAM model, the networks it read."""
    own = data["patterns"]["own"]
    own_patterns = None if own is None else _patterns(own)
    if "habits" in families and own_patterns is None:
        raise ValueError("the habits family needs the player's move patterns, which are missing")
    iam = (
        None
        if data["iam"] is None
        else OpponentModel.from_state(from_document(data["iam"], source=f"{source} (its IAM model)"))
    )
    if "habits" in families and iam is None:
        raise ValueError("the habits family needs the IAM model, which is missing")
    if "value" in families:
        _check_value_net(data["value_net"], source)
    replies = data.get("reply_policy")
    return RankerMemories(
        book=PopulationBook(_book(data["book"])),
        population_patterns=MovePatterns({"population": _patterns(data["patterns"]["population"])}),
        own_patterns=own_patterns,
        iam=iam,
        value_net=data["value_net"],
        policy_net=data.get("policy_net"),
        reply_policy=None if replies is None else ReplyPolicy(replies["weights"]),
    )


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
