"""The runnable examples in the chess package's docstrings."""

import doctest

import pytest

import search.chess.board
import search.chess.engine
import search.chess.scoring


@pytest.mark.parametrize("module", [search.chess.scoring, search.chess.board, search.chess.engine])
def test_docstring_examples_run(module):
    failed, attempted = doctest.testmod(module, raise_on_error=False)
    assert attempted > 0 and failed == 0
