"""A small seeded sample of the hostile-input harness (the large run is ``run.py`` here).

Seeded mutations of the bundled games, of a model file and UCI sessions, plus
hypothesis strategies that build PGN text, model damage and command sequences from
their parts; every case is checked against the harness's invariants.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iam.chunks.fitted import to_document


def _harness():
    """The harness module beside this file (tests are not a package)."""
    name = "fuzz_hostile"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("hostile.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


hostile = _harness()
QUICK = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def corpus(small_model):
    return hostile.Corpus.load(model_json=json.dumps(to_document(small_model.state_)))


def _assert_ok(outcome) -> None:
    assert outcome.status in ("ok", "refused"), f"{outcome.kind}:{outcome.seed} {outcome.mutations}\n{outcome.detail}"


def test_seeded_pgn_mutations_keep_every_game_accounted_for(corpus):
    outcomes = [hostile.pgn_case(corpus, seed) for seed in range(150)]
    for outcome in outcomes:
        _assert_ok(outcome)
    assert sum(o.games for o in outcomes) > 300 and sum(o.status == "ok" for o in outcomes) > 60
    assert sum(o.unaccounted + o.cut_short for o in outcomes) == 0


def test_seeded_model_mutations_are_refused_or_give_probabilities(corpus):
    outcomes = [hostile.model_case(corpus, seed) for seed in range(30)]
    for outcome in outcomes:
        _assert_ok(outcome)
    assert sum(o.status == "refused" for o in outcomes) > 5 and sum(o.beliefs_checked for o in outcomes) > 200


@pytest.fixture(scope="module")
def ranker_corpus(corpus):
    return hostile.Corpus(corpus.games, corpus.model_json, hostile.small_ranker_json(corpus))


def test_seeded_ranker_mutations_are_refused_or_give_probabilities(ranker_corpus):
    outcomes = [hostile.ranker_case(ranker_corpus, seed) for seed in range(60)]
    for outcome in outcomes:
        _assert_ok(outcome)
    assert sum(o.status == "refused" for o in outcomes) > 10 and sum(o.status == "ok" for o in outcomes) > 5
    assert sum(o.beliefs_checked for o in outcomes) > 100


def test_seeded_uci_sessions_answer_every_go(corpus):
    outcomes = [hostile.uci_case(corpus, seed) for seed in range(40)]
    for outcome in outcomes:
        _assert_ok(outcome)
    assert sum(o.gos for o in outcomes) > 40


def test_go_commands_with_out_of_range_limits_end_without_stop():
    for go in hostile._HOSTILE_GOS:
        outcome = hostile.Outcome("uci", 0)
        hostile.check_uci_session_without_stop(["position startpos moves e2e4", go], outcome)
        expected = 0 if go in ("go ponder", "go infinite") else 1
        assert outcome.status == "ok" and outcome.gos == 1 and outcome.bestmoves_missing == 0, (go, outcome)
        assert expected == 1 - hostile._last_go_waits_for_stop([go])


# -- hypothesis: inputs built from their parts ------------------------------------

_PGN_PARTS = (
    '[Event "E"]\n', '[White "Tester, Tom"]\n', '[Black "Other, Olga"]\n', '[Result "1-0"]\n',
    '[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n', '[SetUp "1"]\n', '[Variant "From Position"]\n',
    '[White "Tester', "\n", "\n\n", "\r\n", "1. e4 ", "e5 ", "2. Nf3 ", "Nc6 ", "3. Bb5 ", "a6 ", "1. d4 ",
    "Kd7 ", "e3 ", "{ note ", "} ", "{x} ", "( ", ") ", "; rest\n", "%esc\n", "$1 ", "!? ", "1-0 ", "* ",
    "Qxh9 ", "-- ", "\x00", "\ufffd", "\u00e9", "[", "]", '"',
)


@QUICK
@given(parts=st.lists(st.sampled_from(_PGN_PARTS) | st.text(max_size=5), min_size=1, max_size=60))
def test_pgn_text_from_parts(parts):
    data = "".join(parts).encode("utf-8", errors="surrogatepass")
    mutated = hostile.MutatedPgn(data, data, "Tester", "pgn", False, ("hypothesis",))
    outcome = hostile.Outcome("pgn", 0)
    with tempfile.TemporaryDirectory() as folder:
        hostile.check_pgn_bytes(mutated, Path(folder), outcome)
    _assert_ok(outcome)


_JSON_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
)


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    data=st.data(),
    value=st.recursive(
        _JSON_LEAVES,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
        max_leaves=8,
    ),
)
def test_model_damage_from_parts(corpus, data, value):
    content = json.loads(corpus.model_json)
    path = data.draw(st.sampled_from(hostile._paths(content)[1:]))
    hostile._set(content, path, value)
    outcome = hostile.Outcome("model", 0)
    with tempfile.TemporaryDirectory() as folder:
        hostile.check_model_bytes(json.dumps(content).encode(), Path(folder), outcome, [chess.Board()])
    _assert_ok(outcome)


_GO_WORDS = st.sampled_from(
    ["depth", "1", "2", "nodes", "500", "movetime", "20", "wtime", "btime", "300", "winc", "movestogo", "ponder",
     "infinite", "searchmoves", "e2e4", "g1f3", "zz", "-1", "x", "9" * 400]
)
_COMMANDS = st.one_of(
    st.sampled_from(["uci", "isready", "ucinewgame", "stop", "ponderhit", "position startpos",
                     "position startpos moves e2e4 e7e5", "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
                     "position startpos moves e2e4 zzzz", "setoption name Hash value 2", ""]),
    st.lists(_GO_WORDS, max_size=6).map(lambda words: " ".join(["go", *words, "depth", "1"])),
    st.lists(_GO_WORDS, max_size=6).map(lambda words: " ".join(["go", *words])),
    st.text(max_size=12),
)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(lines=st.lists(_COMMANDS, min_size=1, max_size=8))
def test_uci_sessions_from_parts(lines):
    lines = [line.replace("\n", " ").replace("\r", " ") for line in lines if line.split()[:1] != ["quit"]]
    outcome = hostile.Outcome("uci", 0)
    hostile.check_uci_session(lines, outcome)
    _assert_ok(outcome)


def test_the_reference_reading_itself():
    """The plain reading the harness trusts: tag blocks, and main-line move tokens."""
    text = b'[Event "a"]\n[White "x"]\n\n1. e4 {c} e5 (1... c5 2. Nf3) 2. Nf3! $1 Nc6?! 1-0\n[Event "b"]\n1. d4 *\n'
    games = hostile.reference_games(text)
    assert len(games) == 2 and games[0].tags == {"Event": "a", "White": "x"}
    assert hostile.mainline_tokens("".join(games[0].movetext)) == 4
    assert hostile.mainline_tokens("1. e4 { open") is None and hostile.mainline_tokens("1. e4 ( e5") is None
    assert hostile.mainline_tokens("1. e4 e5 1/2-1/2*") == 2  # two results glued together are no move
    assert dataclasses.is_dataclass(hostile.Outcome)
