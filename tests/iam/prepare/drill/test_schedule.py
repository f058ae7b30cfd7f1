"""The drill's schedule (iam.prepare.drill.schedule): Leitner boxes, their intervals, and the JSON file."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from iam.errors import DataError
from iam.prepare.drill.schedule import INTERVALS_DAYS, SCHEDULE_FORMAT, Schedule

NOW = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)


def test_right_answers_climb_the_boxes_at_the_trainers_intervals():
    schedule, now, waits = Schedule(), NOW, []
    for _ in range(8):
        card = schedule.answer("white:e2e4", True, now)
        waits.append((card.due - now).days)
        now = card.due
    assert waits == [1, 3, 7, 14, 30, 60, 60, 60] and card.box == len(INTERVALS_DAYS) and card.right == 8


def test_a_right_answer_before_the_card_is_due_changes_nothing_but_the_count():
    schedule = Schedule()
    due = schedule.answer("white:e2e4", True, NOW).due
    card = schedule.answer("white:e2e4", True, NOW + timedelta(hours=2))
    assert (card.box, card.due, card.right) == (1, due, 2)
    assert not schedule.is_due("white:e2e4", NOW + timedelta(hours=23)) and schedule.is_due("white:e2e4", due)


def test_a_mistake_sends_the_card_back_to_box_zero_due_at_once():
    schedule = Schedule()
    for day in range(3):
        schedule.answer("black:d2d4 d7d5", True, NOW + timedelta(days=10 * day))
    card = schedule.answer("black:d2d4 d7d5", False, NOW + timedelta(days=30))
    back = NOW + timedelta(days=30)
    assert (card.box, card.due, card.wrong) == (0, back, 1)
    assert schedule.answer("black:d2d4 d7d5", True, back).due == back + timedelta(days=1)


def test_the_schedule_is_saved_and_read_back_as_versioned_json(tmp_path):
    path = tmp_path / "drill-schedule.json"
    assert Schedule.load(path).cards == {}
    schedule = Schedule()
    schedule.answer("white:", True, NOW)
    schedule.answer("white:e2e4 e7e5", False, NOW)
    schedule.save(path)
    data = json.loads(path.read_text())
    assert (data["format"], data["version"], data["intervals_days"]) == (SCHEDULE_FORMAT, 1, list(INTERVALS_DAYS))
    assert data["cards"]["white:"] == {"box": 1, "due": "2026-11-29T20:00:00+00:00", "right": 1, "wrong": 0}
    assert Schedule.load(path) == schedule


@pytest.mark.parametrize("text", ["[]", "{}", '{"format": "iam-drill-schedule", "version": 1, "cards": {"a": 1}}'])
def test_a_file_that_is_not_a_schedule_is_a_data_error(tmp_path, text):
    path = tmp_path / "drill-schedule.json"
    path.write_text(text)
    with pytest.raises(DataError, match="is not a drill schedule"):
        Schedule.load(path)
