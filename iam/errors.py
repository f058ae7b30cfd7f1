"""Errors a user can cause: each is reported by the CLI as one line, exit code 2."""

from __future__ import annotations

__all__ = ["IAMError", "DataError", "ModelFileError", "PositionError", "PlayerNotFoundError"]


class IAMError(Exception):
    """Base class for mistakes in the user's input (files, names, positions).

    Anything derived from it is a message for a person, not a bug: the CLI prints
    ``iam: error: <message>`` and exits with status 2 without a traceback.
    """


class DataError(IAMError):
    """A game file is missing, empty, unreadable or not PGN, or bundled data is damaged."""


class PlayerNotFoundError(DataError):
    """No game in the file has the requested player as White or Black."""


class ModelFileError(IAMError):
    """A model file is missing, corrupt, truncated, of an unknown version or shape."""


class PositionError(IAMError):
    """An invalid FEN or an illegal move in a move list."""
