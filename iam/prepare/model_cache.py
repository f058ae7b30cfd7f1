"""The dossier's default model, fitted once per set of his games and kept for the next dossier.

A dossier is rebuilt often (the other colour, more plies, a new engine depth), and with the
engine's analyses cached, fitting the default model (:func:`~iam.prepare.dossier.fit_default_model`)
is most of a warm run. :func:`cached_default_model` keeps each fitted model in a folder, under a
key that changes with anything the fit depends on: his games (every field of every game, in the
order of their numbers), the player's name, the seed, the default model's settings (and the engine
whose glance it reads, by its path), the toolkit's version and the digest of the feature code. A kept
model is the ranker's own versioned JSON (gzip); a file that cannot be read as one is fitted again and
replaced, never trusted.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from iam._install import __version__
from iam.errors import DataError, ModelFileError
from iam.games.pgn import PlayerGame
from iam.models.files import check_writable
from iam.prepare.dossier import MODEL_PLIES, default_model_params, default_model_runtime, fit_default_model
from iam.priors.artefacts import feature_code_digest
from iam.ranker import MoveRanker
from iam.runtime import Runtime

__all__ = ["cached_default_model", "model_key"]


def model_key(games: Sequence[PlayerGame], player: str, seed: int, engine: str | None = None) -> str:
    """A digest of everything the default model's fit on ``games`` depends on (with ``engine``, its path too)."""
    digest = hashlib.sha256()
    settings = {
        "player": player, "seed": seed, "model": default_model_params(engine), "engine": engine or None,
        "plies": MODEL_PLIES, "version": __version__, "features": feature_code_digest(),
    }
    digest.update(json.dumps(settings, sort_keys=True).encode())
    for game in sorted(games, key=lambda game: game.index):
        record = [game.index, game.color, game.start_fen, [move.uci() for move in game.moves], game.result,
                  game.white, game.black, game.event, game.date]
        digest.update(json.dumps(record).encode())
    return digest.hexdigest()[:24]


def cached_default_model(
    games: Sequence[PlayerGame], player: str, folder: str | Path, *, seed: int = 0, quiet: bool = False,
    runtime: Runtime = Runtime(),
) -> tuple[MoveRanker, bool]:
    """The default model of ``player`` fitted on ``games``: from ``folder`` if kept there, else fitted and kept.

    With an engine in ``runtime`` the model reads its glance (:func:`~iam.prepare.dossier.default_model_params`) and
    is kept apart from the model without. Returns the model and whether it came from the folder. DataError when the
    folder cannot be written.
    """
    folder = Path(folder)
    path = folder / f"{player_slug(player)}-{model_key(games, player, seed, runtime.engine)}.json.gz"
    if path.is_file():
        try:
            return MoveRanker.load(path, runtime=default_model_runtime(runtime)), True
        except ModelFileError:
            pass  # damaged or foreign: fitted again below and replaced
    try:  # a folder that cannot take the model is refused before the fit, not after
        folder.mkdir(parents=True, exist_ok=True)
        check_writable(path)
    except (OSError, ModelFileError) as exc:
        raise DataError(f"cannot keep the fitted model in {folder}: {getattr(exc, 'strerror', None) or exc}") from None
    model = fit_default_model(games, player, seed=seed, quiet=quiet, runtime=runtime)
    try:
        model.save(path)
    except (OSError, ModelFileError) as exc:
        model.close()
        raise DataError(f"cannot keep the fitted model in {folder}: {getattr(exc, 'strerror', None) or exc}") from None
    return model, False


def player_slug(player: str) -> str:
    """The player's name as a file name's start: letters and digits, the rest as dashes."""
    return "".join(ch if ch.isalnum() else "-" for ch in player).strip("-").lower() or "player"
