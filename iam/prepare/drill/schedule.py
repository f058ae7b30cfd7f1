"""When a prepared position comes back: Leitner boxes with the intervals of the common spaced-repetition trainers.

Each of our positions on the prepared lines is a card, named by its colour and the moves that reach it. A card
never answered is due at once. Answered right when due, it moves up a box and comes back after that box's
interval, :data:`INTERVALS_DAYS` (1, 3, 7, 14, 30 and 60 days for boxes 1 to 6; it stays in box 6). Answered
wrong, it falls back to box 0 and is due at once, so it returns in the same session until answered right. A card
answered right before it is due (met on the way to another) keeps its box and date.

The schedule is a versioned JSON file (:data:`SCHEDULE_FORMAT`) beside the dossier.

>>> from datetime import datetime, timezone
>>> now = datetime(2026, 11, 28, tzinfo=timezone.utc)
>>> schedule = Schedule()
>>> schedule.is_due("white:e2e4", now)
True
>>> schedule.answer("white:e2e4", True, now).due.day, schedule.answer("white:e2e4", True, now).box
(29, 1)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from iam.errors import DataError

__all__ = ["INTERVALS_DAYS", "SCHEDULE_FORMAT", "SCHEDULE_VERSION", "SCHEDULE_FILE", "Card", "Schedule"]

INTERVALS_DAYS = (1, 3, 7, 14, 30, 60)
"""Days before a card of box 1, 2, ... comes back (Leitner boxes)."""
SCHEDULE_FORMAT = "iam-drill-schedule"
SCHEDULE_VERSION = 1
SCHEDULE_FILE = "drill-schedule.json"
"""The schedule's file name, in the dossier's folder."""


@dataclass
class Card:
    """One of our positions: its box, when it is due, and how often it was answered right and wrong."""

    box: int
    due: datetime
    right: int = 0
    wrong: int = 0

    def to_dict(self) -> dict:
        return {"box": self.box, "due": self.due.isoformat(), "right": self.right, "wrong": self.wrong}


@dataclass
class Schedule:
    """The cards of one dossier, by name."""

    cards: dict[str, Card] = field(default_factory=dict)

    def is_due(self, name: str, now: datetime) -> bool:
        """Whether card ``name`` is due at ``now`` (a card never answered is)."""
        card = self.cards.get(name)
        return card is None or card.due <= now

    def answer(self, name: str, right: bool, now: datetime) -> Card:
        """Record an answer to card ``name`` at ``now`` (see the module docstring); returns the card."""
        card = self.cards.get(name) or Card(box=0, due=now)
        if right:
            card.right += 1
            if card.due <= now:
                card.box = min(card.box + 1, len(INTERVALS_DAYS))
                card.due = now + timedelta(days=INTERVALS_DAYS[card.box - 1])
        else:
            card.wrong += 1
            card.box, card.due = 0, now
        self.cards[name] = card
        return card

    def to_dict(self) -> dict:
        return {
            "format": SCHEDULE_FORMAT,
            "version": SCHEDULE_VERSION,
            "intervals_days": list(INTERVALS_DAYS),
            "cards": {name: card.to_dict() for name, card in sorted(self.cards.items())},
        }

    def save(self, path: str | Path) -> None:
        """Write the schedule to ``path`` (through a temporary file, so an interruption leaves the old one)."""
        path = Path(path)
        partial = path.with_name(path.name + ".part")
        partial.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        partial.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Schedule:
        """The schedule in ``path``; an empty one when there is no such file; DataError for a file that is not one."""
        path = Path(path)
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != SCHEDULE_FORMAT or data.get("version") != SCHEDULE_VERSION:
                raise ValueError("format")
            cards = {
                name: Card(int(card["box"]), datetime.fromisoformat(card["due"]), int(card["right"]),
                           int(card["wrong"]))
                for name, card in data["cards"].items()
            }
        except (ValueError, KeyError, TypeError, AttributeError):
            raise DataError(f"{path} is not a drill schedule ({SCHEDULE_FORMAT} version {SCHEDULE_VERSION})") from None
        return cls(cards)
