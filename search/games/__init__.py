"""Small games with known answers: tic-tac-toe, Nim (II-Nim of source note 004) and explicit
game trees (the source notes' worked examples, chance and multi-player trees)."""

from search.games.nim import Nim
from search.games.tictactoe import TicTacToe
from search.games.trees import ChanceNode, Decision, TreeGame, two_ply, uniform

__all__ = ["TicTacToe", "Nim", "TreeGame", "Decision", "ChanceNode", "two_ply", "uniform"]
