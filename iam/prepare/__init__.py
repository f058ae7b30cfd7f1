"""Preparing against one player: his repertoire, his costly habits and lines prepared for him.

One module per idea: :mod:`~iam.prepare.tree` (his opening tree, merged by position),
:mod:`~iam.prepare.scoring` (what judges a position), :mod:`~iam.prepare.lines`
(expectimax over his beliefs), :mod:`~iam.prepare.habits` (where his usual move
costs him), :mod:`~iam.prepare.dossier` (the config and :func:`prepare`),
:mod:`~iam.prepare.report` (HTML, markdown, JSON, PGN), :mod:`~iam.prepare.page` (the
page a player opens, with :mod:`~iam.prepare.page_tree`, its tree of positions, and
:mod:`~iam.prepare.boards`, its boards), :mod:`~iam.prepare.book` (the polyglot format),
:mod:`~iam.prepare.beliefs` (his beliefs: the model, the masters' book, his games once),
:mod:`~iam.prepare.exports` (the repertoire PGN, the book's moves, the prepared lines as JSON) and
:mod:`~iam.prepare.drill` (practising the lines on a spaced-repetition schedule).
"""

from iam.prepare.book import write_book
from iam.prepare.dossier import Dossier, PrepareConfig, prepare
from iam.prepare.lines import LineSettings

__all__ = ["Dossier", "PrepareConfig", "LineSettings", "prepare", "write_book"]
