"""Fresh ``iam uci`` processes beside a busy neighbour: every ``go`` form gets exactly one legal ``bestmove``.

The small version of benchmarks/bench_uci_answers.py (which runs thousands of processes and
counts late answers too): each process answers every form of its :data:`FORMS`, a
different form first in each, the second half of them beside a process spinning on a core.
What costs is a process's start (a second), not its twenty answers: the processes are few.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[4] / "benchmarks" / "bench_uci_answers.py"
PROCESSES = 6


@pytest.fixture(scope="module")
def answers():
    spec = importlib.util.spec_from_file_location("bench_uci_answers", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_every_go_form_gets_exactly_one_legal_bestmove_in_fresh_processes_under_load(answers):
    neighbours: list[bool] = []
    block, answers.BLOCK = answers.BLOCK, PROCESSES // 2  # one block alone, then one beside the busy neighbour
    try:
        tallies = answers.run_many(
            {"plain": [sys.executable, "-m", "iam", "uci"]}, PROCESSES, parallel=3,
            on_process=lambda name, busy, tally: neighbours.append(busy),
        )
    finally:
        answers.BLOCK = block
    assert sorted(neighbours) == [False] * (PROCESSES // 2) + [True] * (PROCESSES - PROCESSES // 2)
    tally = tallies["plain"]
    assert sum(tally.gos.values()) == PROCESSES * len(answers.FORMS)
    assert not tally.missing and not tally.duplicated and not tally.early and not tally.illegal, (
        tally.missing, tally.duplicated, tally.early, tally.illegal,
    )
    assert not tally.broken, tally.broken


def _fake_engine(path: Path, answers: str) -> None:
    """Write a fake engine that answers ``uci``, ``isready`` and ``quit``, and the rest as ``answers`` (more
    ``elif`` branches of its command loop) say."""
    path.write_text(
        "import sys\n"
        "for line in sys.stdin:\n"
        "    word = line.split()[0] if line.split() else ''\n"
        "    if word == 'uci': print('uciok', flush=True)\n"
        "    elif word == 'isready': print('readyok', flush=True)\n"
        "    elif word == 'quit': break\n"
        + answers
    )


def test_the_checks_see_a_missing_a_duplicated_and_an_illegal_answer(answers, tmp_path):
    fake = tmp_path / "fake_engine.py"  # answers go depth 1 twice, never answers mate, plays an illegal move
    _fake_engine(
        fake,
        "    elif line.startswith('go depth 1'): print('bestmove f3e5\\nbestmove f3e5', flush=True)\n"
        "    elif line.startswith('go movetime 50'): print('bestmove e1e8', flush=True)\n",
    )
    forms = [form for form in answers.FORMS if form.name in ("depth 1", "movetime 50", "mate 1")]
    give_up = answers.GIVE_UP, answers.GIVE_UP_UNTIMED
    answers.GIVE_UP = answers.GIVE_UP_UNTIMED = 0.5
    try:
        tally = answers.run_process([sys.executable, str(fake)], 0, forms)
    finally:
        answers.GIVE_UP, answers.GIVE_UP_UNTIMED = give_up
    assert dict(tally.duplicated) == {"depth 1": 1}
    assert dict(tally.illegal) == {"movetime 50": 1}
    assert dict(tally.missing) == {"mate 1": 1}


def test_an_answer_before_its_stop_is_early_unless_the_go_has_a_time_of_its_own(answers, tmp_path):
    fake = tmp_path / "eager_engine.py"  # answers every go at once, infinite included
    _fake_engine(fake, "    elif word == 'go': print('bestmove f3e5', flush=True)\n")
    forms = [form for form in answers.FORMS if form.name in ("infinite+stop", "bare go+stop")]
    tally = answers.run_process([sys.executable, str(fake)], 0, forms)
    assert dict(tally.early) == {"infinite+stop": 1}
    assert not tally.missing and not tally.duplicated and not tally.late and not tally.illegal
