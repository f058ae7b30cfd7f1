"""The feature fingerprint: per column of the families it covers, a sum and a sum of squares over fixed positions,
which changes exactly when what it covers changes."""

from __future__ import annotations

import dataclasses

import chess
import numpy as np
import pytest

import iam.evidence.evidence as evidence_module
import iam.evidence.fingerprint as fingerprint_module
from iam.evidence.fingerprint import FINGERPRINT_FAMILIES, FINGERPRINT_POSITIONS, feature_fingerprint
from iam.evidence.registry import DEFAULT_FAMILIES, ENGINE_FAMILIES, FAMILY_REGISTRY, family_columns

POSITIONS = 3
"""Positions the tests' fingerprints cover (the default covers more, at the same cost per position)."""


def _registry(**computes):
    """The registry with the search family's computation a cheap constant one (0.5 in every column of every row),
    and ``computes`` replaced."""

    def search(context, position, found):
        return {name: np.full(len(position.moves), 0.5) for name in family_columns("search")}

    changed = {"search": search, **computes}
    return {
        name: dataclasses.replace(family, compute=changed[name]) if name in changed else family
        for name, family in FAMILY_REGISTRY.items()
    }


@pytest.fixture(scope="module")
def read_once():
    """The games the fingerprint reads, read once for the module."""
    answers = {}
    real = fingerprint_module.read_games

    def read_games(paths, **options):
        key = (tuple(map(str, paths)), tuple(sorted(options.items())))
        if key not in answers:
            answers[key] = real(paths, **options)
        return answers[key]

    return read_games


@pytest.fixture()
def cheap_search(monkeypatch, read_once):
    """``use(**computes)``: the evidence's registry from now on is :func:`_registry`'s (the games read once)."""
    monkeypatch.setattr(fingerprint_module, "read_games", read_once)

    def use(**computes):
        monkeypatch.setattr(evidence_module, "FAMILY_REGISTRY", _registry(**computes))

    use()
    return use


def test_it_covers_every_family_that_needs_neither_a_player_nor_an_engine():
    assert FINGERPRINT_FAMILIES == tuple(
        family for family in DEFAULT_FAMILIES if family not in ("habits", "population", *ENGINE_FAMILIES)
    )
    assert FINGERPRINT_POSITIONS == 12


def test_it_names_every_column_in_order_with_a_sum_and_a_sum_of_squares(cheap_search):
    found = feature_fingerprint(POSITIONS)
    assert list(found) == [name for family in FINGERPRINT_FAMILIES for name in family_columns(family)]
    rows = found["search_best"][0] / 0.5
    assert found["search_best"] == [0.5 * rows, 0.25 * rows]
    for name, (total, squares) in found.items():
        assert squares >= 0 and total**2 <= squares * rows * (1 + 1e-9), name  # Cauchy-Schwarz


def test_its_positions_are_a_fixed_sample_and_every_legal_move_is_a_row(cheap_search):
    """A move family of ones shows the rows: the fingerprint's count is the legal moves of the boards it was given."""
    boards = []

    def ones(context, position, found):
        boards.append(position.board.fen())
        columns = {name: np.ones(len(position.moves)) for name in family_columns("move")}
        columns["exchange_gain"] = np.zeros(len(position.moves))
        return columns

    cheap_search(move=ones)
    found = feature_fingerprint(POSITIONS)
    assert len(boards) == len(set(boards)) == POSITIONS
    legal = sum(chess.Board(fen).legal_moves.count() for fen in boards)
    assert found["capture"] == [legal, legal]
    first = list(boards)
    boards.clear()
    feature_fingerprint(POSITIONS)
    assert boards == first  # seeded: the same positions every time


def test_a_change_to_one_column_changes_that_column_only(cheap_search):
    before = feature_fingerprint(POSITIONS)
    move = FAMILY_REGISTRY["move"].compute

    def more_captures(context, position, found):
        columns = move(context, position, found)
        return {**columns, "capture": columns["capture"] + 1.0}

    cheap_search(move=more_captures)
    after = feature_fingerprint(POSITIONS)
    assert [name for name in before if before[name] != after[name]] == ["capture"]
    rows = before["search_best"][0] / 0.5
    assert after["capture"][0] == before["capture"][0] + rows


def test_a_change_to_a_family_it_does_not_cover_leaves_it_unchanged(cheap_search):
    before = feature_fingerprint(POSITIONS)
    cheap_search(habits=lambda context, position, found: pytest.fail("the habits family is not computed"))
    assert feature_fingerprint(POSITIONS) == before


def test_more_positions_give_another_fingerprint(cheap_search):
    assert feature_fingerprint(POSITIONS + 1)["piece_pawn"] != feature_fingerprint(POSITIONS)["piece_pawn"]
