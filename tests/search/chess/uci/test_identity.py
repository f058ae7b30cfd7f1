"""What the engine says of itself: the name and note of each mode, and the options each offers."""

from __future__ import annotations

import chess

from search.chess.imitation import Imitation
from search.chess.uci.identity import ENGINE_NAME, EngineModel, Identity


def test_the_plain_engine_lists_its_options_and_no_note():
    assert Identity().lines() == [
        f"id name {ENGINE_NAME}",
        "id author IAM toolkit",
        "option name Hash type spin default 64 min 1 max 4096",
        "option name Threads type spin default 1 min 1 max 1",
        "option name Ponder type check default false",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name PieceValues type string default <tables>",
        "uciok",
    ]


def test_each_mode_names_itself_and_says_so_after_uciok():
    guided = Identity(model="M", modelled_color=chess.BLACK)
    assert guided.name == f"{ENGINE_NAME} (guided by M)"
    assert guided.lines()[-2:] == ["uciok", "info string guided search with M at Black's nodes"]
    exploiting = Identity(model="M", weight=0.25)
    assert exploiting.name == f"{ENGINE_NAME} (exploiting M)"
    assert exploiting.lines()[-1] == "info string exploiting M (weight 0.25)"
    imitating = Identity(model="M", imitation=Imitation(temperature=0.5, seed=9))
    assert imitating.name == f"{ENGINE_NAME} (playing as M)"
    assert "option name Temperature type string default 0.5" in imitating.lines()
    assert "option name Seed type spin default 9 min 0 max 2147483647" in imitating.lines()


def test_the_model_file_and_book_options_are_offered_only_when_given():
    lines = Identity(model_file="", book=True).lines()
    assert "option name ModelFile type string default <empty>" in lines
    assert "option name OwnBook type check default true" in lines
    assert "option name ModelFile type string default m.json" in Identity(model_file="m.json").lines()
    assert not any("ModelFile" in line or "OwnBook" in line for line in Identity().lines())


def test_the_engine_model_defaults_to_no_model():
    assert EngineModel().predictor is None and EngineModel().loader is None
