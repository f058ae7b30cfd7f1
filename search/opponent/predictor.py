"""The predictor contract: what a search, an evaluation or a command may ask of an opponent model.

Every predictor has one method, :meth:`MovePredictor.predict_proba`: a state to beliefs
over that state's legal actions, each in [0, 1]. Its meaning:

* A predictor's beliefs cover every legal action and sum to 1, unless it is
  :class:`Abstaining`: such a predictor names only the actions it has evidence for
  and leaves the rest of the belief (:meth:`Abstaining.abstention`) to "some other
  move". The type says so, not a smaller sum found by chance; an empty mapping from an
  abstaining predictor means no prediction.
* For chess the state is a ``chess.Board`` whose ``move_stack`` holds the game so far
  (a model may use the opening moves and the previous position), and the actions are
  ``chess.Move`` objects.

Optional abilities are small protocols, read once by :func:`abilities_of` into an
:class:`Abilities` record (nothing else probes a predictor for them):

* :class:`ContextDependent`: the beliefs depend on more than the position; the
  ``context_key`` names that dependence and a search caching predictions adds it to
  its key. Without it, beliefs depend on the position alone.
* :class:`SharesRootScores`: the beliefs rest partly on one-ply-and-deeper scores of
  the root moves (:func:`search.chess.scoring.score_root_moves`); a search computing
  the same scores hands over its cache and they are computed once.
* :class:`HasReplyPolicy`: a cheap policy (``reply_policy_``) for the player's
  moves deep in a search, where the full predictor costs too much.
* :class:`HasBlunderRate`: his measured share of moves that lose two pawns or more
  (``blunder_rate_``, None when unmeasured), the ceiling of an engine playing as him.
* :class:`Explaining`: ``explain(state, top=...)`` gives ranked explanations (the
  product's one explanation type lives with the models).
* :class:`Closing`: holds an engine process or a file; ``close()`` releases it. The
  toolkit's models are :class:`Closeable` context managers (``with ... as model:``), and
  :func:`in_use` gives any predictor that form.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from search.game import Action, State

__all__ = [
    "MovePredictor", "NullPredictor", "checked_beliefs", "Abstaining", "ContextDependent", "SharesRootScores",
    "HasReplyPolicy", "HasBlunderRate", "Explaining", "Closing", "Abilities", "abilities_of", "Closeable", "in_use",
]

_TOLERANCE = 1e-9


class MovePredictor(Protocol):
    """Beliefs over the legal actions of ``state`` (see the module docstring)."""

    def predict_proba(self, state: State) -> Mapping[Action, float]: ...


@runtime_checkable
class Abstaining(Protocol):
    """A predictor that names only the moves it has evidence for (its beliefs sum to at most 1)."""

    def predict_proba(self, state: State) -> Mapping[Action, float]: ...

    def abstention(self, state: State) -> float:
        """The belief left to moves it does not name: 1 less the sum of its beliefs."""
        ...


@runtime_checkable
class ContextDependent(Protocol):
    def context_key(self, state: State) -> Hashable: ...


@runtime_checkable
class SharesRootScores(Protocol):
    search_depth: int
    """The depth of the root scores its beliefs read."""

    def use_root_scores(self, cache: Any) -> None: ...


@runtime_checkable
class HasReplyPolicy(Protocol):
    reply_policy_: Any
    """A cheap predictor of the player's moves at deep nodes, or ``None`` when fitted without one."""


@runtime_checkable
class HasBlunderRate(Protocol):
    blunder_rate_: float | None
    """His share of moves losing two pawns or more against the best, by the search his model scores moves with."""


@runtime_checkable
class Explaining(Protocol):
    def explain(self, state: State, *, top: int | None = ...) -> Sequence[Any]: ...


@runtime_checkable
class Closing(Protocol):
    def close(self) -> None: ...


@dataclass(frozen=True)
class Abilities:
    """What a predictor can do beyond :meth:`MovePredictor.predict_proba` (``None``: it cannot)."""

    abstains: bool
    context_key: Callable[[State], Hashable] | None
    use_root_scores: Callable[[Any], None] | None
    root_score_depth: int | None
    reply_policy: MovePredictor | None
    blunder_rate: float | None
    explain: Callable[..., Sequence[Any]] | None
    close: Callable[[], None] | None


def abilities_of(predictor: object) -> Abilities:
    """Read ``predictor``'s optional abilities once (the one place they are looked for)."""
    return Abilities(
        abstains=isinstance(predictor, Abstaining),
        context_key=predictor.context_key if isinstance(predictor, ContextDependent) else None,
        use_root_scores=predictor.use_root_scores if isinstance(predictor, SharesRootScores) else None,
        root_score_depth=predictor.search_depth if isinstance(predictor, SharesRootScores) else None,
        reply_policy=predictor.reply_policy_ if isinstance(predictor, HasReplyPolicy) else None,
        blunder_rate=predictor.blunder_rate_ if isinstance(predictor, HasBlunderRate) else None,
        explain=predictor.explain if isinstance(predictor, Explaining) else None,
        close=predictor.close if isinstance(predictor, Closing) else None,
    )


class Closeable:
    """A predictor that may hold an engine process or a file: ``close()`` releases it (here:
    nothing to release), and ``with predictor as p:`` closes it at the end."""

    def close(self) -> None:
        """Release what the predictor holds; it may be used again afterwards (it reopens what it needs)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@contextmanager
def in_use(predictor: MovePredictor) -> Iterator[MovePredictor]:
    """``with in_use(predictor) as p:``: any predictor, closed at the end if it is :class:`Closing`."""
    try:
        yield predictor
    finally:
        close = abilities_of(predictor).close
        if close is not None:
            close()


class NullPredictor:
    """Predicts nothing, ever: a guided search with it equals the plain search."""

    def predict_proba(self, state: State) -> Mapping[Action, float]:
        return {}

    def abstention(self, state: State) -> float:
        return 1.0


def checked_beliefs(
    beliefs: Mapping[Action, float], legal: Collection[Action]
) -> dict[Action, float]:
    """``beliefs`` as a dict after checking the protocol's contract; ``ValueError`` if broken."""
    total = 0.0
    for action, belief in beliefs.items():
        if action not in legal:
            raise ValueError(f"belief for an action that is not legal here: {action}")
        if not 0.0 <= belief <= 1.0:
            raise ValueError(f"belief {belief} for {action} is outside [0, 1]")
        total += belief
    if total > 1.0 + _TOLERANCE:
        raise ValueError(f"beliefs sum to {total:.6f}, more than 1")
    return dict(beliefs)
