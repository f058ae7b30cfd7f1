"""The page a player opens: the dossier as one self-contained HTML file.

:mod:`~iam.prepare.page.nodes` (the tree of positions the page shows, his reply
probabilities at each), :mod:`~iam.prepare.page.boards` (python-chess's board drawings,
their shared parts written once), :mod:`~iam.prepare.page.render` (the HTML, with
``page.css`` and the hand-written ``page.js`` beside it).
"""

from iam.prepare.page.nodes import SideTree, side_tree
from iam.prepare.page.render import page_html

__all__ = ["SideTree", "side_tree", "page_html"]
