"""The drill's session (iam.prepare.drill.session) with scripted answers: which positions are asked, his replies
drawn from his beliefs, mistakes, and the schedule written."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from iam.errors import DataError
from iam.prepare.drill import drill, read_prepared
from iam.prepare.drill.session import card_name

from .prepared_tree import OURS, card_of, prepared_at, write_prepared

NOW = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)


class Player:
    """Answers each prompt from the last position shown: the prepared move, or ``wrong`` at the prompts listed."""

    def __init__(self, wrong: tuple[int, ...] = (), quit_at: int | None = None) -> None:
        self.wrong, self.quit_at, self.fen, self.prompts, self.said = wrong, quit_at, "", 0, []
        self.asked: list[tuple[str, bool]] = []

    def say(self, text: str) -> None:
        self.said.append(text)
        if text.startswith("Position: "):
            self.fen = text.removeprefix("Position: ")

    def ask(self, prompt: str) -> str | None:
        self.prompts += 1
        if self.prompts == self.quit_at:
            return "quit"
        wrong = self.prompts in self.wrong
        self.asked.append((card_of(self.fen), not wrong))
        return "a3" if wrong else prepared_at(self.fen)[0]


def test_a_session_of_right_answers_asks_every_position_once_then_nothing_is_due(tmp_path):
    folder = write_prepared(tmp_path / "dossier")
    player = Player()
    summary = drill(folder, ask=player.ask, say=player.say, now=NOW, seed=3, colors=("black",))
    assert sorted(card for card, _ in player.asked) == sorted(f"black:{path}" for path in OURS)
    assert (summary.right, summary.wrong, summary.due_left, summary.walks) == (4, 0, 0, 3)
    cards = json.loads((folder / "drill-schedule.json").read_text())["cards"]
    assert all(card["box"] == 1 and card["due"] == "2026-11-29T20:00:00+00:00" for card in cards.values())
    again = Player()
    assert drill(folder, ask=again.ask, say=again.say, now=NOW + timedelta(hours=12), seed=3).walks == 0
    later = Player()
    drill(folder, ask=later.ask, say=later.say, now=NOW + timedelta(days=1), seed=3, colors=("black",))
    cards = json.loads((folder / "drill-schedule.json").read_text())["cards"]
    assert len(later.asked) == 4 and all(card["box"] == 2 for card in cards.values())
    assert all(card["due"] == "2026-12-02T20:00:00+00:00" for card in cards.values())


def test_a_mistake_shows_the_prepared_move_and_the_position_comes_back(tmp_path):
    folder = write_prepared(tmp_path / "dossier")
    player = Player(wrong=(1,))
    summary = drill(folder, ask=player.ask, say=player.say, now=NOW, seed=3, colors=("black",))
    assert "Mistake: the prepared move is e4 (also prepared: d4)" in player.said
    assert summary.mistakes[0][1:] == ("a2a3", "e2e4") and summary.wrong == 1
    assert Counter(card for card, _ in player.asked)["black:"] == 2  # asked again in the same session
    card = json.loads((folder / "drill-schedule.json").read_text())["cards"]["black:"]
    assert (card["box"], card["right"], card["wrong"]) == (1, 1, 1)


def test_his_replies_are_drawn_by_his_beliefs_with_the_seed(tmp_path):
    """Over many first walks, 1. e4 e5 comes about twice as often as 1. e4 c5 (0.6 against 0.3); e6, which the
    lines do not follow, never; the same seed draws the same replies."""
    first = Counter()
    for seed in range(300):
        folder = write_prepared(tmp_path / f"d{seed}")
        player = Player()
        drill(folder, ask=player.ask, say=player.say, now=NOW, seed=seed, colors=("black",), lines=1)
        first[player.asked[1][0]] += 1
    assert set(first) == {"black:e2e4 e7e5", "black:e2e4 c7c5"}
    assert 0.55 < first["black:e2e4 e7e5"] / 300 < 0.78
    runs = []
    for name in ("x", "y"):
        player = Player()
        drill(write_prepared(tmp_path / name), ask=player.ask, say=player.say, now=NOW, seed=11, colors=("black",))
        runs.append(player.said)
    assert runs[0] == runs[1]


def test_an_alternative_is_right_and_quit_stops_with_the_answers_kept(tmp_path):
    folder = write_prepared(tmp_path / "dossier")
    answers = iter(["d4", "quit"])
    said: list[str] = []
    summary = drill(folder, ask=lambda prompt: next(answers), say=said.append, now=NOW, seed=0, colors=("black",))
    assert "Right: d4 (an alternative; the chosen move is e4)" in said and summary.right == 1
    cards = json.loads((folder / "drill-schedule.json").read_text())["cards"]
    assert list(cards) == [card_name("black", read_prepared(folder)["black"][""])]


def test_a_folder_without_prepared_lines_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="holds no prepared.json"):
        drill(tmp_path, ask=lambda prompt: None, say=print, now=NOW, seed=0)
    (tmp_path / "prepared.json").write_text('{"format": "other"}')
    with pytest.raises(DataError, match="is not a file of prepared lines"):
        drill(tmp_path, ask=lambda prompt: None, say=print, now=NOW, seed=0)
    write_prepared(tmp_path)
    with pytest.raises(DataError, match="no prepared lines against him with white"):
        drill(tmp_path, ask=lambda prompt: None, say=print, now=NOW, seed=0, colors=("white",))
