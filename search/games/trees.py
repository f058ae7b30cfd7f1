"""Explicit game trees: the source notes' worked examples written down node by node.

A tree is built from :class:`Decision` nodes (a player picks a labelled child),
:class:`ChanceNode` nodes (an outcome happens with a probability) and leaves (a number:
the utility for player 0 in a two-player zero-sum tree; or a tuple: one utility per
player). A state is the path of labels from the root.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from search.game import CHANCE, Capabilities, Game, Player

__all__ = ["Decision", "ChanceNode", "TreeGame", "Path", "two_ply", "uniform"]

Path = tuple[str, ...]


@dataclass(frozen=True)
class Decision:
    """``player`` chooses among ``children`` (label -> subtree), in insertion order."""

    player: int
    children: Mapping[str, Tree]


@dataclass(frozen=True)
class ChanceNode:
    """Nature picks a child: ``outcomes`` maps a label to ``(probability, subtree)``."""

    outcomes: Mapping[str, tuple[float, Tree]]


Tree = Decision | ChanceNode | float | tuple


class TreeGame(Game):
    """A game given as an explicit tree; capabilities are read off the tree."""

    def __init__(self, root: Tree) -> None:
        self._nodes: dict[Path, Tree] = {}
        self._movers: dict[Path, Player] = {}
        self._index(root, (), 0)
        leaves = [n for n in self._nodes.values() if not isinstance(n, (Decision, ChanceNode))]
        players = {n.player for n in self._nodes.values() if isinstance(n, Decision)}
        tuples = [leaf for leaf in leaves if isinstance(leaf, tuple)]
        n_players = len(tuples[0]) if tuples else max(2, max(players, default=0) + 1)
        zero_sum = not tuples or all(abs(sum(t)) < 1e-12 for t in tuples)
        self.capabilities = Capabilities(
            players=n_players,
            zero_sum=zero_sum,
            chance=any(isinstance(n, ChanceNode) for n in self._nodes.values()),
        )

    def _index(self, node: Tree, path: Path, leaf_mover: int) -> None:
        self._nodes[path] = node
        if isinstance(node, Decision):
            self._movers[path] = node.player
            for label, child in node.children.items():
                self._index(child, path + (label,), node.player + 1)
        elif isinstance(node, ChanceNode):
            self._movers[path] = CHANCE
            total = sum(p for p, _ in node.outcomes.values())
            if abs(total - 1.0) > 1e-9:
                raise ValueError(f"chance outcomes at {path} sum to {total}, not 1")
            for label, (_, child) in node.outcomes.items():
                self._index(child, path + (label,), 0)
        else:
            self._movers[path] = leaf_mover

    def initial_state(self) -> Path:
        return ()

    def to_move(self, state: Path) -> Player:
        mover = self._movers[state]
        return mover if mover is CHANCE else mover % self.capabilities.players

    def actions(self, state: Path) -> Sequence[str]:
        node = self._nodes[state]
        if isinstance(node, Decision):
            return tuple(node.children)
        if isinstance(node, ChanceNode):
            return tuple(node.outcomes)
        return ()

    def result(self, state: Path, action: str) -> Path:
        child = state + (action,)
        if child not in self._nodes:
            raise ValueError(f"no action {action!r} at {state}")
        return child

    def is_terminal(self, state: Path) -> bool:
        return not isinstance(self._nodes[state], (Decision, ChanceNode))

    def utility(self, state: Path, player: int) -> float:
        leaf = self._nodes[state]
        if isinstance(leaf, tuple):
            return float(leaf[player])
        assert not isinstance(leaf, (Decision, ChanceNode)), f"{state} is not a leaf"
        return float(leaf) if player == 0 else -float(leaf)

    def chance_outcomes(self, state: Path) -> Sequence[tuple[str, float]]:
        node = self._nodes[state]
        if not isinstance(node, ChanceNode):
            raise ValueError(f"{state} is not a chance node")
        return tuple((label, p) for label, (p, _) in node.outcomes.items())

    def leaves(self) -> Sequence[Path]:
        """Every terminal state, left to right."""
        return tuple(p for p in self._nodes if self.is_terminal(p))


def two_ply(values: Sequence[Sequence[float]], labels: str = "A") -> Decision:
    """A MAX-over-MIN tree as in source note 000: ``values[i][j]`` is leaf ``A{i+1}{j+1}``."""
    return Decision(
        0,
        {
            f"{labels}{i + 1}": Decision(
                1, {f"{labels}{i + 1}{j + 1}": v for j, v in enumerate(row)}
            )
            for i, row in enumerate(values)
        },
    )


def uniform(children: Mapping[str, Tree]) -> ChanceNode:
    """A chance node whose outcomes (label -> subtree) are equally likely."""
    if not children:
        raise ValueError("a chance node needs at least one outcome")
    probability = 1.0 / len(children)
    return ChanceNode({label: (probability, child) for label, child in children.items()})
