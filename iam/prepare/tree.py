"""His repertoire with one colour: the tree of his games' opening positions, merged by position.

Every game of his with the colour is replayed to ``plies`` plies; each position (its
EPD: placement, side to move, castling, en passant) is one node, so two move orders
that reach the same position meet in one node (a transposition), and each move out of
a node is one edge with the games that played it, his score in them (win 1, draw 1/2,
games of unknown result left out), the first and last dates, and a recency weight.
The games behind each move order are counted too (:attr:`Repertoire.paths`): a node merges
the move orders that reach it, a move order counts only its own games.

Recency: a game ``a`` years older than his latest dated game weighs ``0.5 ** (a / h)``
with ``h`` the half-life in years (an undated game weighs as his oldest dated one, or 1
when no game is dated). His *usual* move in a position is the one of highest summed
weight. Where his games run out (a node he is to move in, reached in ``branch_games``
games or more, where no move of his was played in that many games), the model's
beliefs continue the tree: its moves of belief ``>= predicted_belief`` become
*predicted* edges, with that belief.

His beliefs where his games went (:class:`RepertoireBeliefs`): a Dirichlet posterior
whose prior is the model's belief, ``A`` pseudo-games strong, updated by his games
there:

    P(move) = (c(move) + A * q(move)) / (n + A)

with ``q`` the model's belief (0 for a move he played that the model leaves out) and ``c`` his recency-weighted
games with the move (each game counted once at a position, by its first choice there), scaled
so that they sum to the position's effective number of games ``n = W^2 / S`` (``W``
the sum of the weights of his games there, ``S`` the sum of their squares): a few
recent games weigh more than many old ones, but never count as more games than there
were. A move he played in many games is believed about as often as he played it; a
position he reached once leans on the model. Elsewhere the model's beliefs stand alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import chess

from iam.games.pgn import PlayerGame

__all__ = [
    "Edge", "Node", "Repertoire", "RepertoireBeliefs", "build_repertoire", "game_weights", "tree_beliefs", "Predictor",
    "PRIOR_STRENGTH", "HALF_LIFE_YEARS", "dirichlet_update", "most_believed", "PlayedGames",
]

_POINTS = {"win": 1.0, "draw": 0.5, "loss": 0.0}

HALF_LIFE_YEARS = 2.5
"""A game's recency weight halves every this many years (see the module docstring). Chosen on development
games of two bundled masters with each colour, each against the dossier as it stood before it (``iam experiment
prepare --games dev``, its rows on his date; ``--half-life`` 1.25 to 1,000 years): the lowest mean log loss of
the beliefs in his opening moves. Longer half-lives serve one dossier read against his whole career better, and
prepare worse for his next game."""

PRIOR_STRENGTH = 2.0
"""Pseudo-games of the belief before his games in :class:`RepertoireBeliefs`. Chosen on development games of
two bundled masters with each colour, one dossier from all their fitting games (``iam experiment prepare --games
dev``, ``--prior-strength`` 0.5, 1 and 2 by ``--half-life`` 10, 20, 40 and 1,000 years): the lowest mean log
loss of the beliefs in his opening moves."""


class Predictor(Protocol):
    """Anything with ``predict_proba(board) -> {move: belief}`` (the ranker, the IAM model, a stub)."""

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]: ...


@dataclass
class PlayedGames:
    """His games that played a move: how many, his score in them, their recency weights and their dates."""

    games: int = 0
    points: float = 0.0
    scored: int = 0
    """Games of known result among ``games`` (the score's denominator)."""
    weight: float = 0.0
    weight_squares: float = 0.0
    """Sum of the squared weights of ``games`` (for the effective number of games)."""
    first_date: str = ""
    last_date: str = ""

    @property
    def score(self) -> float | None:
        """His points per game of known result (None without one)."""
        return self.points / self.scored if self.scored else None

    def add(self, game: PlayerGame, weight: float) -> None:
        """Count one more game, of recency ``weight``."""
        self.games += 1
        self.weight += weight
        self.weight_squares += weight * weight
        if game.result in _POINTS:
            self.points += _POINTS[game.result]
            self.scored += 1
        if game.date:
            self.first_date = min(self.first_date or game.date, game.date)
            self.last_date = max(self.last_date, game.date)


@dataclass
class Edge:
    """One move out of a position: the games that played it, or the model's belief in it."""

    uci: str
    san: str
    child: str
    """EPD of the position the move leads to."""
    played: PlayedGames = field(default_factory=PlayedGames)
    belief: float | None = None
    """The model's belief in the move where his games run out (None elsewhere)."""

    @property
    def predicted(self) -> bool:
        """A move the model adds where no game of his played it."""
        return self.played.games == 0


@dataclass
class Node:
    """One position of the tree (transpositions merged), reached first by ``path``."""

    epd: str
    fen: str
    ply: int
    his_turn: bool
    path: tuple[str, ...]
    """SAN moves of the first game that reached it (its shortest way in is not needed)."""
    games: int = 0
    edges: dict[str, Edge] = field(default_factory=dict)

    def usual(self) -> Edge | None:
        """The move of highest recency weight among those his games played here (ties: more games, then UCI)."""
        played = [edge for edge in self.edges.values() if edge.played.games]
        return max(played, key=lambda edge: (edge.played.weight, edge.played.games, edge.uci), default=None)


@dataclass
class Repertoire:
    """His opening tree with one colour."""

    color: chess.Color
    root: str
    nodes: dict[str, Node]
    games: int
    plies: int
    half_life_years: float
    branch_games: int
    paths: dict[tuple[str, ...], int] = field(default_factory=dict)
    """His games by the moves (UCI) they began with, for every prefix within ``plies``: the games behind each
    move order (a transposition's node merges several)."""

    def node(self, board: chess.Board) -> Node | None:
        return self.nodes.get(board.epd())

    def usual_move(self, board: chess.Board) -> chess.Move | None:
        """His most weighted move in ``board`` over his games (None where no game of his went)."""
        node = self.node(board)
        usual = node.usual() if node is not None else None
        return chess.Move.from_uci(usual.uci) if usual is not None else None

    def played_moves(self, board: chess.Board) -> list[chess.Move]:
        """The moves played in ``board`` in ``branch_games`` of his games or more, most played first."""
        node = self.node(board)
        if node is None:
            return []
        kept = (e for e in node.edges.values() if e.played.games >= self.branch_games)
        edges = sorted(kept, key=lambda e: (-e.played.games, e.uci))
        return [chess.Move.from_uci(edge.uci) for edge in edges]

    def named_move(self, board: chess.Board, predictor: Predictor) -> chess.Move | None:
        """The move the dossier names for him: the most believed by ``predictor`` (ties: UCI order).

        Given :class:`RepertoireBeliefs` over this tree, that is his most played move
        where his games went, unless the model sees another move he played about as often.
        """
        return most_believed(predictor.predict_proba(board))

    def shown(self) -> list[tuple[Node, Edge, int]]:
        """The tree in reading order: (node, edge, depth), depth first, most played first.

        Only edges of ``branch_games`` games or more and predicted edges are shown; a
        transposition is expanded once, where it is first met.
        """
        rows: list[tuple[Node, Edge, int]] = []
        self._visit(self.root, 0, rows, {self.root})
        return rows

    def _visit(self, epd: str, depth: int, rows: list[tuple[Node, Edge, int]], seen: set[str]) -> None:
        node = self.nodes[epd]
        kept = [edge for edge in node.edges.values() if edge.played.games >= self.branch_games or edge.predicted]
        kept.sort(key=lambda edge: (-edge.played.games, -(edge.belief or 0.0), edge.uci))
        for edge in kept:
            rows.append((node, edge, depth))
            if not edge.predicted and edge.child in self.nodes and edge.child not in seen:
                seen.add(edge.child)
                self._visit(edge.child, depth + 1, rows, seen)


class RepertoireBeliefs:
    """His beliefs where his games went: the model's belief updated by his games there (see the module docstring).

    A :class:`Predictor` itself; each position's beliefs are computed once.
    """

    def __init__(self, repertoire: Repertoire, model: Predictor, strength: float = PRIOR_STRENGTH) -> None:
        if not strength > 0:
            raise ValueError(f"the prior's strength must be positive, not {strength}")
        self.repertoire, self.model, self.strength = repertoire, model, strength
        self._known: dict[str, dict[chess.Move, float]] = {}

    def predict_proba(self, board: chess.Board) -> dict[chess.Move, float]:
        key = board.epd()
        if key not in self._known:
            self._known[key] = self._beliefs(board)
        return dict(self._known[key])

    def _beliefs(self, board: chess.Board) -> dict[chess.Move, float]:
        prior = self.model.predict_proba(board)
        node = self.repertoire.node(board)
        edges = [] if node is None or not node.his_turn else [edge for edge in node.edges.values() if edge.played.games]
        if not edges:
            return prior
        # A move he played is believed even where the model leaves it out (a model that abstains).
        unnamed = sorted({chess.Move.from_uci(edge.uci) for edge in edges} - prior.keys(), key=chess.Move.uci)
        prior = {**prior, **dict.fromkeys(unnamed, 0.0)}
        weight = sum(edge.played.weight for edge in edges)
        squares = sum(edge.played.weight_squares for edge in edges)
        scale = weight / squares  # c(move) = w(move) * n / W with n = W^2 / S
        played = {edge.uci: edge.played.weight * scale for edge in edges}
        return dirichlet_update(prior, played, self.strength, weight * scale)


def most_believed(beliefs: dict[chess.Move, float]) -> chess.Move | None:
    """The move of highest belief (ties: UCI order); None for no moves.

    >>> d4, e4 = chess.Move.from_uci("d2d4"), chess.Move.from_uci("e2e4")
    >>> most_believed({e4: 0.4, d4: 0.4}), most_believed({e4: 0.6, d4: 0.4}), most_believed({})
    (Move.from_uci('d2d4'), Move.from_uci('e2e4'), None)
    """
    return min(beliefs, key=lambda move: (-beliefs[move], move.uci())) if beliefs else None


def dirichlet_update(
    prior: dict[chess.Move, float], counts: Mapping[str, float], strength: float, total: float
) -> dict[chess.Move, float]:
    """The posterior ``(counts(move) + strength * prior(move)) / (total + strength)`` over the prior's moves.

    ``counts`` by UCI move, ``total`` the games they count (the caller says which moves it counts).
    """
    return {
        move: (counts.get(move.uci(), 0.0) + strength * belief) / (total + strength) for move, belief in prior.items()
    }


def game_weights(games: Sequence[PlayerGame], half_life_years: float) -> list[float]:
    """Each game's recency weight ``0.5 ** (age / half_life)``, age in years from his latest dated game."""
    if not half_life_years > 0:
        raise ValueError("the half-life must be positive")
    years = [_year(game.date) for game in games]
    dated = [year for year in years if year is not None]
    if not dated:
        return [1.0] * len(games)
    latest, oldest = max(dated), min(dated)
    return [0.5 ** ((latest - (oldest if year is None else year)) / half_life_years) for year in years]


def _year(date: str) -> float | None:
    """A PGN date as a fractional year ("1948.03.??" -> 1948.125); None when the year is unknown."""
    parts = re.findall(r"[0-9?]+", date or "")
    if not parts or not parts[0].isdigit():
        return None
    year = float(parts[0])
    if len(parts) > 1 and parts[1].isdigit():
        year += (min(max(int(parts[1]), 1), 12) - 1) / 12
    return year


def build_repertoire(
    games: Sequence[PlayerGame],
    color: chess.Color,
    *,
    plies: int,
    half_life_years: float = HALF_LIFE_YEARS,
    branch_games: int = 2,
    predictor: Predictor | None = None,
    predicted_belief: float = 0.2,
) -> Repertoire:
    """His tree with ``color`` from ``games`` (games of the other colour or another start are left out).

    >>> from iam.games.pgn import PlayerGame
    >>> e4, e5 = chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5")
    >>> game = PlayerGame(index=0, color=chess.WHITE, start_fen=chess.STARTING_FEN, moves=(e4, e5), result="win")
    >>> tree = build_repertoire([game, game], chess.WHITE, plies=2)
    >>> tree.usual_move(chess.Board()), tree.nodes[chess.Board().epd()].edges["e2e4"].played.score
    (Move.from_uci('e2e4'), 1.0)
    """
    own = [game for game in games if game.color == color and game.start_fen == chess.STARTING_FEN]
    weights = game_weights(own, half_life_years)
    start = chess.Board()
    root = Node(start.epd(), start.fen(), 0, start.turn == color, ())
    nodes = {root.epd: root}
    paths: dict[tuple[str, ...], int] = {(): len(own)}
    for game, weight in zip(own, weights):
        _add_game(nodes, root, game, weight, color, plies)
        ucis = tuple(move.uci() for move in game.moves[:plies])
        for length in range(1, len(ucis) + 1):
            paths[ucis[:length]] = paths.get(ucis[:length], 0) + 1
    tree = Repertoire(color, root.epd, nodes, len(own), plies, half_life_years, branch_games, paths)
    if predictor is not None:
        _predict_frontier(tree, predictor, predicted_belief)
    return tree


def _add_game(
    nodes: dict[str, Node], root: Node, game: PlayerGame, weight: float, color: chess.Color, plies: int
) -> None:
    board = chess.Board()
    node = root
    node.games += 1
    seen, left = {node.epd}, set()
    for move in game.moves[:plies]:
        san = board.san(move)
        board.push(move)
        epd = board.epd()
        if node.epd not in left:  # a game back at a position counts its first choice there, as node.games counts it
            left.add(node.epd)
            edge = node.edges.get(move.uci())
            if edge is None:
                edge = node.edges[move.uci()] = Edge(move.uci(), san, epd)
            edge.played.add(game, weight)
        child = nodes.get(epd)
        if child is None:
            child = nodes[epd] = Node(epd, board.fen(), board.ply(), board.turn == color, (*node.path, san))
        if epd not in seen:  # a game that repeats a position counts once there
            child.games += 1
            seen.add(epd)
        node = child


def _predict_frontier(tree: Repertoire, predictor: Predictor, threshold: float) -> None:
    """Add the model's moves where his games run out (his turn, reached in enough games, no move played enough)."""
    for node in list(tree.nodes.values()):
        if not node.his_turn or node.games < tree.branch_games or node.ply >= tree.plies:
            continue
        if any(edge.played.games >= tree.branch_games for edge in node.edges.values()):
            continue
        board = chess.Board(node.fen)
        for move, belief in tree_beliefs(predictor, board, threshold):
            edge = node.edges.get(move.uci())
            if edge is None:
                after = board.copy(stack=False)
                after.push(move)
                edge = node.edges[move.uci()] = Edge(move.uci(), board.san(move), after.epd())
            edge.belief = belief


def tree_beliefs(predictor: Predictor, board: chess.Board, threshold: float) -> list[tuple[chess.Move, float]]:
    """The model's moves of belief ``>= threshold`` in ``board``, most believed first."""
    beliefs = predictor.predict_proba(board)
    kept = ((m, float(p)) for m, p in beliefs.items() if p >= threshold)
    return sorted(kept, key=lambda item: (-item[1], item[0].uci()))
