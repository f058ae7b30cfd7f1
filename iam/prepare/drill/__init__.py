"""Drilling the prepared lines: a terminal session (:mod:`~iam.prepare.drill.session`) and the spaced-repetition
schedule that decides which positions come back when (:mod:`~iam.prepare.drill.schedule`)."""

from iam.prepare.drill.schedule import INTERVALS_DAYS, SCHEDULE_FILE, Schedule
from iam.prepare.drill.session import PREPARED_FILE, DrillSummary, drill, read_prepared

__all__ = ["drill", "read_prepared", "DrillSummary", "Schedule", "INTERVALS_DAYS", "SCHEDULE_FILE", "PREPARED_FILE"]
