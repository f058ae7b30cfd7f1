"""The base both models of a player share: scikit-learn's estimator contract, checked parameters, model files.

:class:`PlayerModel` is what :class:`~iam.chunks.model.OpponentModel` and
:class:`~iam.ranker.estimator.MoveRanker` have in common: parameters stored by
``__init__`` only and declared with scikit-learn's parameter constraints
(``_parameter_constraints``, checked by scikit-learn's own ``_validate_params`` at the
start of ``fit``, so a bad value is a ``ValueError`` naming the parameter, the value and
what is allowed); a ``kind`` that reports and JSON name; saving and loading through
:mod:`iam.models.files` (versioned JSON, gzip when the name ends in .gz, never pickle).
A model says what its file holds with ``to_dict`` and how to read it back with
``from_dict``. A fitted model keeps what it learned in one record, ``state_``, and its
public fitted attributes (``player_`` ...) read that record's fields through :class:`Fitted`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from numbers import Integral, Real
from pathlib import Path
from typing import Any, ClassVar, Self

import chess
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval

from iam.games.pgn import PlayerGame
from iam.models.files import read_document, write_document
from search.opponent.predictor import Closeable

__all__ = ["PlayerModel", "Fitted", "WholeNumber", "Number", "most_common_name"]


class WholeNumber(Interval):
    """An integer in a range, as scikit-learn's ``Interval(Integral, ...)``, but never ``True`` or ``False``.

    >>> WholeNumber(1, None, closed="left").is_satisfied_by(3), WholeNumber(1, 9).is_satisfied_by(True)
    (True, False)
    """

    def __init__(self, left: int | None, right: int | None, *, closed: str = "both") -> None:
        super().__init__(Integral, left, right, closed=closed)

    def is_satisfied_by(self, val: Any) -> bool:
        return not isinstance(val, bool) and super().is_satisfied_by(val)


class Number(Interval):
    """A real number in a range, as scikit-learn's ``Interval(Real, ...)``, but never a boolean.

    >>> Number(0, float("inf"), closed="left").is_satisfied_by(float("inf"))
    False
    """

    def __init__(self, left: float | None, right: float | None, *, closed: str = "both") -> None:
        super().__init__(Real, left, right, closed=closed)

    def is_satisfied_by(self, val: Any) -> bool:
        return not isinstance(val, bool) and super().is_satisfied_by(val)


class Fitted:
    """A fitted attribute (``player_`` ...): the field of the model's ``state_`` of the same name, without the ``_``.

    With ``part`` (``"training"``), the field of that part of the state. Reading it before
    ``fit`` raises AttributeError, so ``check_is_fitted`` sees an unfitted model; it cannot
    be set (the state is one value: replace ``state_``).
    """

    def __init__(self, part: str | None = None) -> None:
        self.part = part

    def __set_name__(self, owner: type, name: str) -> None:
        self.field = name.removesuffix("_")

    def __get__(self, model: Any, owner: type | None = None) -> Any:
        if model is None:
            return self
        state = model.state_
        return getattr(state if self.part is None else getattr(state, self.part), self.field)

    def __set__(self, model: object, value: object) -> None:
        raise AttributeError(f"{self.field}_ is part of the fitted state; replace state_ instead")


class PlayerModel(Closeable, BaseEstimator):
    """A model of one chess player in scikit-learn's style: the contract both models keep."""

    kind: ClassVar[str]
    """Which kind of model this is, as reports and JSON name it."""
    _parameter_constraints: ClassVar[dict[str, list]]
    """Each parameter's allowed values, in scikit-learn's terms (checked at the start of ``fit``)."""

    def _check_params(self) -> None:
        """ValueError (scikit-learn's ``InvalidParameterError``) for a parameter outside its constraints."""
        self._validate_params()

    def to_dict(self) -> dict:
        """The JSON-ready content of the fitted model, with its format name and version."""
        raise NotImplementedError

    @classmethod
    def from_dict(cls, data: dict, *, source: str = "model") -> Self:
        """A fitted model from :meth:`to_dict`'s content; ModelFileError if it is not one."""
        raise NotImplementedError

    def save(self, path: str | Path) -> None:
        """Write the model as versioned JSON (gzip when the name ends in .gz), atomically."""
        write_document(self.to_dict(), path)

    @classmethod
    def load(cls, path: str | Path, **options: Any) -> Self:
        """Read a file written by :meth:`save` (ModelFileError if it is not one).

        ``options`` go to :meth:`from_dict`.
        """
        return cls.from_dict(read_document(path), source=f"model file {path}", **options)


def most_common_name(games: Sequence[PlayerGame]) -> str:
    """The name the modelled player has in most of ``games`` ("" for none): his label when none is given."""
    names = Counter(game.white if game.color == chess.WHITE else game.black for game in games)
    return names.most_common(1)[0][0] if names else ""
