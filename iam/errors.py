"""Errors a user can cause: each is reported by the CLI as one line, exit code 2."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["IAMError", "DataError", "ParameterError", "ModelFileError", "PositionError", "PlayerNotFoundError"]


class IAMError(Exception):
    """Base class for mistakes in the user's input (files, names, positions).

    Anything derived from it is a message for a person, not a bug: the CLI prints
    ``iam: error: <message>`` and exits with status 2 without a traceback.
    """


class DataError(IAMError):
    """A game file is missing, empty, unreadable or not PGN, or bundled data is damaged."""


class ParameterError(DataError):
    """A parameter's value is not one the function accepts.

    ``parameter`` is the API's name of it (``"min_games"``), ``value`` the value given,
    ``allowed`` a short phrase of what is accepted (``"at least 1"``), ``reason`` why the
    value fails when that is not plain from ``allowed``, and ``others`` the names of other
    parameters that would also settle it. The message reads
    ``min_games must be at least 1, not 0``; :meth:`worded` gives it under other names
    (the command line's options).

    >>> str(ParameterError("min_games", 0, "at least 1"))
    'min_games must be at least 1, not 0'
    >>> ParameterError("player", "Lasker", "one person's name", others=("aliases",)).worded({"player": "--player"})
    "--player must be one person's name, not 'Lasker'; or use aliases"
    """

    def __init__(
        self, parameter: str, value: Any, allowed: str, *, reason: str = "", others: Sequence[str] = ()
    ) -> None:
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        self.reason = reason
        self.others = tuple(others)
        super().__init__(self.worded({}))

    def worded(self, names: dict[str, str]) -> str:
        """The message with each parameter called by its entry in ``names`` (its own name when it has none)."""
        shown = (
            f"{self.value:g}"
            if isinstance(self.value, float)
            else repr(self.value)
            if isinstance(self.value, str)
            else self.value
        )
        text = f"{names.get(self.parameter, self.parameter)} must be {self.allowed}, not {shown}"
        if self.reason:
            text += f": {self.reason}"
        if self.others:
            text += "; or use " + " or ".join(names.get(name, name) for name in self.others)
        return text

    def __reduce__(self) -> tuple[Any, ...]:
        return (_parameter_error, (type(self), self.parameter, self.value, self.allowed, self.reason, self.others))


def _parameter_error(
    kind: type[ParameterError], parameter: str, value: Any, allowed: str, reason: str, others: tuple[str, ...]
) -> ParameterError:
    """A ParameterError (or subclass) rebuilt from its fields, as unpickling a worker's error does."""
    return kind(parameter, value, allowed, reason=reason, others=others)


class PlayerNotFoundError(DataError):
    """No game in the file has the requested player as White or Black."""


class ModelFileError(IAMError):
    """A model file is missing, corrupt, truncated, of an unknown version or shape."""


class PositionError(IAMError):
    """An invalid FEN or an illegal move in a move list."""
