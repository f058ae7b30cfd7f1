"""Hostile input against the commands that read games, models and engines: a fixed list of cases.

Each case runs ``iam`` in a fresh process on inputs built here from the bundled Capablanca games (empty,
one-game, one-colour, garbage, cut or damaged compressed files, files of two people with one name, Parquet
files of the wrong schema or types, damaged model files of every kind, engines that crash, lie, print garbage,
die mid-run or never answer, ``--out`` as an existing file, a symbolic link, the input itself, a path inside it,
a folder, a read-only place, ``/dev/null``; absurd depths, plies, counts and job numbers; unreachable
schedulers), then is classified: ``ran`` (exit 0), ``refused`` (a non-zero exit whose last line is the
command's one-line message), ``traceback``, ``hang`` (past the case's time) or ``input changed`` (a file the
case did not name as its output changed). A second part interrupts long commands with SIGINT and SIGKILL at 30%
and 70% of their undisturbed time and runs them again on the same caches: the second result must equal the
undisturbed one. Results go to ``commands.csv`` and ``interrupted.csv`` in ``--out``.

    python tests/fuzz/commands.py --out probe-results            # every case (an hour on 2 busy cores)
    python tests/fuzz/commands.py --out probe-results --only annotate
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import chess.pgn
import pandas as pd
import zstandard

ROOT = Path(__file__).resolve().parents[2]
CAPABLANCA = ROOT / "datasets" / "Capablanca.pgn"
STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"

ENGINES = {
    "crash.sh": "#!/bin/sh\nexit 3\n",
    "garbage.sh": "#!/bin/sh\nwhile read l; do echo 'zzz %%% bestmove'; done\n",
    "silent.sh": "#!/bin/sh\nsleep 3600\n",
    "dies_mid.py": (
        "#!/usr/bin/env python3\nimport sys\nn = 0\nfor line in sys.stdin:\n    line = line.strip()\n"
        "    if line == 'uci': print('id name dies\\nuciok', flush=True)\n"
        "    elif line == 'isready': print('readyok', flush=True)\n"
        "    elif line.startswith('go'):\n        n += 1\n        if n > 3: sys.exit(1)\n"
        "        print('info depth 1 score cp 10 pv e2e4\\nbestmove e2e4', flush=True)\n"
    ),
    "lies.py": (
        "#!/usr/bin/env python3\nimport sys\nfor line in sys.stdin:\n    line = line.strip()\n"
        "    if line == 'uci': print('id name liar\\nuciok', flush=True)\n"
        "    elif line == 'isready': print('readyok', flush=True)\n"
        "    elif line.startswith('go'):\n"
        "        print('info depth 99 score cp 99999999999 pv a1a8\\nbestmove a1a8', flush=True)\n"
    ),
}


def build_inputs(folder: Path, model: Path) -> None:
    """The hostile files, from the bundled games and ``model`` (a small move ranker of Capablanca)."""
    import pyarrow as pa
    import pyarrow.parquet as parquet

    folder.mkdir(parents=True, exist_ok=True)
    text = CAPABLANCA.read_text(encoding="utf-8", errors="replace")
    blocks = text.split("\n\n[Event ")
    ten = "\n\n[Event ".join(blocks[:10]) + "\n\n"
    (folder / "empty.pgn").write_text("")
    (folder / "one_game.pgn").write_text(blocks[0] + "\n\n")
    (folder / "ten.pgn").write_text(ten)
    games = []
    handle = io.StringIO(text)
    while (game := chess.pgn.read_game(handle)) is not None and len(games) < 10:
        if "Capablanca" in game.headers.get("White", ""):
            games.append(str(game))
    (folder / "white_only.pgn").write_text("\n\n".join(games) + "\n")
    (folder / "garbage.pgn").write_bytes(bytes(random.Random(1).randrange(256) for _ in range(5000)))
    packed = zstandard.ZstdCompressor().compress(ten.encode())
    damaged = bytearray(packed)
    damaged[len(damaged) // 2] ^= 0xFF
    (folder / "damaged.pgn.zst").write_bytes(bytes(damaged))
    (folder / "truncated.pgn.zst").write_bytes(packed[: len(packed) // 2])
    zipped = gzip.compress(ten.encode())
    (folder / "truncated.pgn.gz").write_bytes(zipped[: len(zipped) // 2])
    (folder / "two_people.pgn").write_text(ten.replace("Capablanca, Jose Raul", "Capablanca, Maria", 6))
    (folder / "a_dir.pgn").mkdir(exist_ok=True)
    (folder / "lichess.pgn").write_text(
        ten.replace('[Event "', '[Site "https://lichess.org/abcd1234"]\n[TimeControl "180+0"]\n[Event "')
    )
    good = model.read_bytes()
    plain = gzip.decompress(good)
    (folder / "model_trunc.json.gz").write_bytes(good[: len(good) // 3])
    (folder / "model_plain_named_gz.json.gz").write_bytes(plain)
    (folder / "model_gz_named_json.json").write_bytes(good)
    (folder / "model_empty.json").write_text("")
    (folder / "model_list.json").write_text("[1, 2, 3]")
    (folder / "model_version_99.json").write_text(json.dumps({**json.loads(plain), "version": 99}))
    flipped = bytearray(good)
    flipped[len(flipped) // 2] ^= 0x55
    (folder / "model_flipped.json.gz").write_bytes(bytes(flipped))
    for name, script in ENGINES.items():
        (folder / name).write_text(script)
        (folder / name).chmod(0o755)
    (folder / "existing.csv").write_text("keep me\n")
    (folder / "other.txt").write_text("other\n")
    (folder / "link_to_other.csv").symlink_to(folder / "other.txt")
    rows = []
    handle = io.StringIO(ten)
    while (game := chess.pgn.read_game(handle)) is not None:
        moves = f"{game.mainline_moves()} {game.headers['Result']}"
        rows.append({"White": game.headers["White"], "Black": game.headers["Black"],
                     "Result": game.headers["Result"], "movetext": moves})
    parquet.write_table(pa.Table.from_pylist(rows), folder / "good.parquet")
    parquet.write_table(pa.Table.from_pylist([{"white": r["White"], "moves": r["movetext"]} for r in rows]),
                        folder / "wrong_schema.parquet")
    parquet.write_table(pa.Table.from_pylist([{"White": 1, "Black": 2.5, "movetext": 7} for _ in rows]),
                        folder / "wrong_types.parquet")
    whole = (folder / "good.parquet").read_bytes()
    (folder / "damaged.parquet").write_bytes(whole[: len(whole) // 2] + b"\0" * 50 + whole[len(whole) // 2 + 50:])
    (folder / "not_parquet.parquet").write_text("hello")
    _dossiers(folder, model)
    (folder / "openings.epd").write_text("not a fen\n\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n")
    (folder / "openings_bad.epd").write_text("8/8/8/8/8/8/8/8 w - - 0 1\nzzz\n")
    _evolution_runs(folder)
    (folder / "read_only").mkdir(exist_ok=True)
    (folder / "read_only").chmod(0o555)


EVOLVE_TINY = ["--generations", "1", "--population", "4", "--nodes", "100", "--max-plies", "12", "--quiet"]


def _evolution_runs(folder: Path) -> None:
    """A finished tiny ``iam evolve`` run and copies of it with its settings or its last generation damaged."""
    good = folder / "evolve_run"
    if not good.exists():
        subprocess.run([sys.executable, "-m", "iam", "evolve", "--out", str(good), *EVOLVE_TINY], check=True,
                       capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    last = sorted(good.glob("generation_*.json"))[-1]
    for name, file, text in [
        ("evolve_bad_config", "config.json", '{"population": '),
        ("evolve_other_config", "config.json", json.dumps({"population": 99})),
        ("evolve_cut_generation", last.name, last.read_text()[:100]),
        ("evolve_list_generation", last.name, "[]"),
    ]:
        shutil.copytree(good, folder / name, dirs_exist_ok=True)
        (folder / name / file).write_text(text)


def _dossiers(folder: Path, model: Path) -> None:
    """A dossier of ``iam prepare`` (its cheapest settings) and copies of it with one file damaged or missing."""
    good = folder / "dossier"
    if not good.exists():
        subprocess.run([sys.executable, "-m", "iam", "prepare", str(folder / "ten.pgn"), "--player", "Capablanca",
                        "--model", str(model), "--plies", "4", "--search-depth", "2", "--out", str(good)],
                       check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    prepared = (good / "prepared.json").read_text()
    variants = {
        "dossier_cut": {"prepared.json": prepared[: len(prepared) // 2]},
        "dossier_version_9": {"prepared.json": json.dumps({**json.loads(prepared), "version": 9})},
        "dossier_list": {"prepared.json": "[1, 2]"},
        "dossier_no_lines": {"prepared.json": None},
        "dossier_bad_schedule": {"drill-schedule.json": '{"boxes": 7'},
        "dossier_schedule_list": {"drill-schedule.json": "[]"},
        "dossier_future_schedule": {"drill-schedule.json": json.dumps({"format": "iam-drill-schedule", "version": 99})},
    }
    for name, files in variants.items():
        copy = folder / name
        shutil.copytree(good, copy, dirs_exist_ok=True)
        for file, text in files.items():
            if text is None:
                (copy / file).unlink()
            else:
                (copy / file).write_text(text)


PGNS = ["empty.pgn", "one_game.pgn", "white_only.pgn", "garbage.pgn", "damaged.pgn.zst", "truncated.pgn.zst",
        "truncated.pgn.gz", "a_dir.pgn", "two_people.pgn", "good.parquet", "wrong_schema.parquet",
        "wrong_types.parquet", "damaged.parquet", "not_parquet.parquet", "lichess.pgn"]
MODELS = ["model_trunc.json.gz", "model_plain_named_gz.json.gz", "model_gz_named_json.json", "model_empty.json",
          "model_list.json", "model_version_99.json", "model_flipped.json.gz", "a_dir.pgn"]
PLAYERS = ["Capablanca", "Nobody Atall", "", "Capablanca, Jose Raul"]
BAD_ENGINES = [*ENGINES, "no_such_engine"]
OUTS = ["existing.csv", "link_to_other.csv", "INPUT", "INPUT/inside.csv", "/proc/1/nope.csv", "a_dir.pgn",
        "/dev/null"]


Case = tuple[str, list[str], float, str]
"""(kind, arguments of ``iam``, seconds allowed, what its standard input reads)."""


def cases(inputs: Path, model: Path, work: Path) -> list[Case]:
    """Every case."""
    found: list[Case] = []

    def at(name: str) -> str:
        return name if name.startswith("/") else str(inputs / name)

    def add(kind: str, args: list[str], seconds: float = 300, stdin: str = "") -> None:
        first = next((a for a in args if a.startswith(str(inputs)) and "." in Path(a).name), "")
        found.append((kind, [a.replace(str(inputs / "INPUT"), first) for a in args], seconds, stdin))

    _file_cases(add, at, model, str(work))
    _option_cases(add, at, model, str(work))
    _interactive_cases(add, at, model, str(work))
    _engine_cases(add, at, model, str(work))
    return found


def _file_cases(add: Callable, at: Callable, model: Path, out: str) -> None:
    """Hostile files: games, models, outputs, players and engines."""
    one, ten = at("one_game.pgn"), at("ten.pgn")
    capa = ["--player", "Capablanca"]
    sf = ["--engine", STOCKFISH, "--depth", "2"]
    for f in PGNS:
        add("annotate games", ["annotate", at(f), "--model", str(model), "--out", f"{out}/a.pgn"])
        add("evaluate games", ["evaluate", str(model), at(f), *capa, "--max-positions", "20"])
        add("analyse games", ["analyse", at(f), *capa, *sf, "--out", f"{out}/an.csv"])
        add("prior games", ["prior", "build", at(f), "--positions", "40", "--min-games", "1", "--out", f"{out}/p.json"])
        add("prepare games", ["prepare", at(f), *capa, "--model", str(model), "--plies", "4", "--search-depth", "2",
                              "--out", f"{out}/dossier"])
    for m in MODELS:
        add("annotate model", ["annotate", one, "--model", at(m)])
        add("evaluate model", ["evaluate", at(m), ten, *capa, "--max-positions", "20"])
        add("prepare model", ["prepare", ten, *capa, "--model", at(m), "--plies", "4", "--search-depth", "2",
                              "--out", f"{out}/dossier"])
        add("predict model", ["predict", at(m), "--moves", "e4"])
        add("inspect model", ["inspect", at(m)])
    for o in OUTS:
        add("annotate out", ["annotate", one, "--model", str(model), "--out", at(o)])
        add("analyse out", ["analyse", one, *capa, *sf, "--out", at(o)])
        add("prior out", ["prior", "build", ten, "--positions", "40", "--min-games", "1", "--out", at(o)])
        if o.endswith(".csv") or o.startswith("INPUT") or o == "/dev/null":
            add("prepare out", ["prepare", ten, *capa, "--model", str(model), "--plies", "4", "--search-depth", "2",
                                "--out", at(o.removesuffix(".csv"))])
    for p in PLAYERS:
        add("annotate player", ["annotate", one, "--model", str(model), "--player", p])
        add("evaluate player", ["evaluate", str(model), ten, "--player", p, "--max-positions", "20"])
        add("prepare player", ["prepare", ten, "--player", p, "--model", str(model), "--plies", "4",
                               "--search-depth", "2", "--out", f"{out}/dossier"])
    for e in BAD_ENGINES:
        add("annotate engine", ["annotate", one, "--model", str(model), "--engine", at(e)], 120)
        add("analyse engine", ["analyse", one, *capa, "--engine", at(e), "--depth", "2", "--out", f"{out}/an.csv"], 120)
        add("prepare engine", ["prepare", ten, *capa, "--model", str(model), "--plies", "4", "--engine", at(e),
                               "--engine-depth", "2", "--out", f"{out}/dossier"])


def _option_cases(add: Callable, at: Callable, model: Path, out: str) -> None:
    """Absurd numbers, splits, priors to update, schedulers and caches."""
    one, ten = at("one_game.pgn"), at("ten.pgn")
    capa = ["--player", "Capablanca"]
    sf = ["--engine", STOCKFISH, "--depth", "2"]
    for n in ["0", "-1", "1000000000000", "abc"]:
        add("evaluate number", ["evaluate", str(model), ten, *capa, "--max-positions", n])
        add("analyse number", ["analyse", one, *capa, "--engine", STOCKFISH, "--depth", n, "--out", f"{out}/an.csv"])
        add("analyse number", ["analyse", one, *capa, *sf, "--jobs", n, "--out", f"{out}/an.csv"])
        add("prior number", ["prior", "build", ten, "--positions", n, "--min-games", "1", "--out", f"{out}/p.json"])
        for option in ("--plies", "--search-depth", "--jobs", "--half-life", "--habit-loss"):
            add("prepare number", ["prepare", ten, *capa, "--model", str(model), "--plies", "4", "--search-depth", "2",
                                   option, n, "--out", f"{out}/dossier"])
    for split in ["test", "dev", "all", "bogus"]:
        add("evaluate split", ["evaluate", str(model), ten, *capa, "--max-positions", "20", "--split", split])
    for u in ["model_trunc.json.gz", "model_list.json", "existing.csv", str(model)]:
        add("prior update", ["prior", "build", ten, "--positions", "40", "--min-games", "1", "--update", at(u),
                             "--out", f"{out}/p.json"])
    for s in ["tcp://127.0.0.1:1", "garbage-address", "tcp://10.255.255.1:8786"]:
        add("analyse scheduler", ["analyse", one, *capa, *sf, "--scheduler", s, "--out", f"{out}/an.csv"], 120)
    for c in ["existing.csv", "garbage.pgn", "a_dir.pgn"]:
        add("analyse cache", ["analyse", one, *capa, *sf, "--cache", at(c), "--out", f"{out}/an.csv"])


MOVES_TYPED = {
    "nothing": "",
    "quit": "quit\n",
    "garbage": "zz9\n\x00\x01\n" + "e9e9\n" * 5 + "quit\n",
    "illegal then quit": "Ke8\nO-O-O\na1a8\nquit\n",
    "a long line": "e4" * 50000 + "\nquit\n",
    "not UTF-8": "\udcff\udcfe\nquit\n",
    "moves then end": "e4\nNf3\nd4\nboard\n",
    "resign": "e4\nresign\n",
}


def _interactive_cases(add: Callable, at: Callable, model: Path, out: str) -> None:
    """iam drill and iam play: damaged dossiers and models, what the user types, absurd options."""
    now = ["--seed", "1", "--now", "2026-11-28T20:00"]
    for folder in ["dossier", "dossier_cut", "dossier_version_9", "dossier_list", "dossier_no_lines",
                   "dossier_bad_schedule", "dossier_schedule_list", "dossier_future_schedule", "empty.pgn",
                   "no_such_folder", "a_dir.pgn", "read_only"]:
        add("drill folder", ["drill", at(folder), *now], 120, "quit\n")
    for typed, text in MOVES_TYPED.items():
        add(f"drill typed {typed}", ["drill", at("dossier"), *now], 120, text)
    for option, value in [("--lines", "0"), ("--lines", "-3"), ("--lines", "1000000000"), ("--color", "green"),
                          ("--seed", "-1"), ("--seed", "abc"), ("--now", "yesterday"), ("--now", "9999-99-99"),
                          ("--now", "1900-01-01")]:
        add("drill option", ["drill", at("dossier"), *now, option, value], 120, "quit\n")
    fast = ["--movetime", "50"]
    for m in MODELS:
        add("play model", ["play", at(m), *fast], 120, "e4\nquit\n")
    for typed, text in MOVES_TYPED.items():
        add(f"play typed {typed}", ["play", str(model), *fast], 180, text)
    for option, value in [("--movetime", "0"), ("--movetime", "-5"), ("--movetime", "1e9"), ("--strength", "-1"),
                          ("--strength", "2"), ("--strength", "nan"), ("--blunder-rate", "-0.5"),
                          ("--blunder-rate", "7"), ("--seed", "-1"), ("--color", "green")]:
        add("play option", ["play", str(model), *fast, option, value], 120, "e4\nquit\n")
    for e in BAD_ENGINES:
        add("play engine", ["play", str(model), *fast, "--engine", at(e)], 120, "e4\nquit\n")


def _engine_cases(add: Callable, at: Callable, model: Path, out: str) -> None:
    """iam match, iam evolve and iam experiment prepare: bad engines, outputs, openings and numbers."""
    iam_uci = f"{sys.executable} -m iam uci"
    quick = ["--games", "2", "--nodes", "300", "--quiet"]
    for e in BAD_ENGINES:
        add("match engine", ["match", iam_uci, at(e), *quick, "--timeout", "5", "--pgn", f"{out}/m.pgn"], 180)
    for option, value in [("--games", "0"), ("--games", "-2"), ("--games", "abc"), ("--nodes", "0"),
                          ("--nodes", "-1"), ("--movetime", "0"), ("--movetime", "-100"), ("--tc", "0+0"),
                          ("--tc", "-5+1"), ("--tc", "abc"), ("--tc", "1e9+1e9"), ("--timeout", "0"),
                          ("--timeout", "nan"), ("--timeout", "inf"), ("--option-a", "garbage"),
                          ("--option-a", "Hash=-5"), ("--openings", at("openings_bad.epd")),
                          ("--openings", at("empty.pgn")), ("--openings", at("garbage.pgn")),
                          ("--openings", at("no_such_file"))]:
        args = ["match", iam_uci, iam_uci, "--games", "2", "--quiet", "--pgn", f"{out}/m.pgn", option, value]
        if option not in ("--nodes", "--movetime", "--tc"):
            args += ["--nodes", "300"]
        add("match option", args, 180)
    for o in OUTS:
        add("match out", ["match", iam_uci, iam_uci, *quick, "--pgn", at(o)], 180)
    add("match engine", ["match", "", iam_uci, *quick, "--pgn", f"{out}/m.pgn"], 120)
    add("match engine", ["match", "'unclosed", iam_uci, *quick, "--pgn", f"{out}/m.pgn"], 120)
    tiny = EVOLVE_TINY
    for option, value in [("--generations", "0"), ("--generations", "-1"), ("--population", "0"),
                          ("--population", "1"), ("--population", "3"), ("--demes", "0"), ("--demes", "9"),
                          ("--nodes", "0"), ("--nodes", "-5"), ("--max-plies", "0"), ("--migrate-every", "-1"),
                          ("--seed", "-1"), ("--jobs", "0"), ("--jobs", "-1"), ("--openings", at("openings_bad.epd")),
                          ("--openings", at("empty.pgn")), ("--openings", at("garbage.pgn")),
                          ("--openings", at("openings.epd")), ("--scheduler", "garbage-address")]:
        add("evolve option", ["evolve", "--out", f"{out}/evolve", *tiny, option, value], 240)
    for o in ["existing.csv", "link_to_other.csv", "a_dir.pgn", "/proc/1/nope", "/dev/null", "read_only/run",
              "evolve_run"]:
        add("evolve out", ["evolve", "--out", at(o), *tiny], 240)
    add("evolve out", ["evolve", "--out", f"{out}/never_run", *tiny, "--resume"], 240)
    for run in ["evolve_run", "evolve_bad_config", "evolve_other_config", "evolve_cut_generation",
                "evolve_list_generation"]:
        add("evolve resume", ["evolve", "--out", at(run), *tiny[:1], "2", *tiny[2:], "--resume"], 240)
    quick_prepare = ["--plies", "4", "--search-depth", "2", "--resamples", "10", "--quiet"]
    for f in ["empty.pgn", "one_game.pgn", "white_only.pgn", "garbage.pgn", "damaged.pgn.zst", "two_people.pgn"]:
        add("experiment prepare games", ["experiment", "prepare", "--pgn", at(f), "--player", "Capablanca",
                                         *quick_prepare, "--out", f"{out}/xp"])
    for option, value in [("--player", "Nobody Atall"), ("--plies", "0"), ("--plies", "-4"), ("--plies", "100000"),
                          ("--entry-ply", "-1"), ("--opening-moves", "0"), ("--search-depth", "99"),
                          ("--engine-lines", "-1"), ("--resamples", "-1"), ("--games", "bogus"),
                          ("--engine", at("crash.sh")), ("--engine", at("garbage.sh")), ("--out", at("existing.csv")),
                          ("--out", "/proc/1/nope")]:
        add("experiment prepare option", ["experiment", "prepare", "--pgn", at("ten.pgn"), "--player", "Capablanca",
                                          *quick_prepare, "--out", f"{out}/xp", option, value])


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.md5(p.read_bytes()).hexdigest() for p in folder.iterdir()
            if p.is_file() and not p.is_symlink() and p.name not in ("existing.csv", "other.txt")}


def _null_device_intact() -> bool:
    """True if ``/dev/null`` (an output of some cases) is still the null device; if a case replaced it by a file, it
    is made again (as root) so that the machine and the next cases keep theirs."""
    null = Path("/dev/null")
    if stat.S_ISCHR(os.lstat(null).st_mode):
        return True
    if os.geteuid() == 0:
        null.unlink()
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        null.chmod(0o666)
    return False


def _verdict(code: int | None, err: str, lines: list[str]) -> str:
    """How a finished case ended, from its exit code (None: killed at its time) and standard error."""
    if code is None:
        return "hang"
    if "Traceback" in err:
        return "traceback"
    if code == 0:
        return "ran"
    if lines and lines[-1].startswith("iam") and sum("error" in line for line in lines) <= 1:
        return "refused"
    return "unclear"


def run_case(
    kind: str, args: list[str], seconds: float, folders: tuple[Path, Path, Path], stdin: str = "",
) -> dict:
    """One case in a fresh process on fresh inputs and an empty work folder (``folders``: the inputs, their
    pristine copy, the work folder; ``stdin`` its standard input), classified."""
    inputs, pristine, work = folders
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    if inputs.exists():
        for folder in inputs.rglob("*"):
            if folder.is_dir() and not folder.is_symlink():
                folder.chmod(0o755)
        shutil.rmtree(inputs)
    shutil.copytree(pristine, inputs, symlinks=True)
    before = _digest(inputs)
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "iam", *args], capture_output=True, timeout=seconds,
                              cwd=inputs.parent, env={**os.environ, "PYTHONPATH": str(ROOT)},
                              input=stdin.encode(errors="surrogateescape"))
        code, err = done.returncode, done.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as expired:
        code, err = None, expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else ""
    lines = [line for line in err.splitlines() if line.strip()]
    verdict = _verdict(code, err, lines)
    after = _digest(inputs)
    if any(after.get(name) != value for name, value in before.items()):
        verdict = "input changed"
    if not _null_device_intact():
        verdict = "device replaced"
    return {"kind": kind, "args": " ".join(args), "exit": code, "verdict": verdict,
            "seconds": round(time.monotonic() - started, 1), "last_line": lines[-1][:200] if lines else ""}


INTERRUPTED: dict[str, Callable[[Path, Path, Path], list[str]]] = {
    "analyse": lambda games, model, work: [
        "analyse", str(games), "--player", "Capablanca", "--engine", STOCKFISH, "--depth", "8",
        "--cache", str(work / "engine.sqlite"), "--out", str(work / "analysis.csv")],
    "prepare (fits its model)": lambda games, model, work: [
        "prepare", str(games), "--player", "Capablanca", "--plies", "4", "--search-depth", "2",
        "--model-cache", str(work / "models"), "--out", str(work / "out")],
    "prepare with stockfish": lambda games, model, work: [
        "prepare", str(games), "--player", "Capablanca", "--model", str(model), "--plies", "6", "--engine", STOCKFISH,
        "--engine-depth", "8", "--engine-cache", str(work / "engine.sqlite"), "--out", str(work / "out")],
    "evolve (resumes)": lambda games, model, work: [
        "evolve", "--out", str(work / "out"), "--generations", "4", "--population", "4", "--nodes", "200",
        "--max-plies", "20", "--quiet", "--resume"],
}


def _default_sigint() -> None:
    """In the child: SIGINT as a terminal sends it (a probe started in the background inherits it ignored, and a
    Python started with SIGINT ignored never raises KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _results(folder: Path) -> str:
    kept = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".csv", ".pgn", ".bin", ".md"))
    return hashlib.md5(b"".join(p.read_bytes() for p in kept)).hexdigest() if kept else ""


def interrupt(games: Path, model: Path, work: Path, only: str = "") -> list[dict]:
    """Each long command (whose name contains one of the comma-separated ``only``) interrupted, then run again on
    its caches, against an undisturbed run."""
    rows = []
    for name, argv in INTERRUPTED.items():
        if not any(part in name for part in only.split(",")):
            continue
        quiet = work / f"{len(rows)}-undisturbed"
        quiet.mkdir(parents=True)
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "iam", *argv(games, model, quiet)], capture_output=True, check=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        full = time.monotonic() - started
        for sig in (signal.SIGINT, signal.SIGKILL):
            for share in (0.3, 0.7):
                place = work / f"{len(rows)}-{name.split()[0]}-{sig.name}-{share}"
                place.mkdir(parents=True)
                command = [sys.executable, "-m", "iam", *argv(games, model, place)]
                env = {**os.environ, "PYTHONPATH": str(ROOT)}
                process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                           preexec_fn=_default_sigint)
                time.sleep(full * share)
                process.send_signal(sig)
                _, first = process.communicate(timeout=120)
                again = subprocess.run(command, capture_output=True, text=True, env=env)
                rows.append({"command": name, "signal": sig.name, "at": share, "first_exit": process.returncode,
                             "first_traceback": "Traceback" in first, "again_exit": again.returncode,
                             "again_traceback": "Traceback" in again.stderr,
                             "same_as_undisturbed": _results(place / "out") == _results(quiet / "out")})
                print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the inputs and the two CSV files")
    parser.add_argument("--only", default="", help="run the cases (and interrupted commands) whose kind contains one "
                        "of these comma-separated texts (default all)")
    parser.add_argument("--count", action="store_true", help="print the number of cases per command and stop")
    parser.add_argument("--no-interrupt", action="store_true", help="skip the interrupted runs")
    args = parser.parse_args()
    if args.count:
        counted = pd.Series([kind.split()[0] if not kind.startswith("experiment") else "experiment prepare"
                             for kind, *_ in cases(args.out / "inputs", Path("model"), args.out / "work")])
        print(counted.value_counts().to_string(), f"\nall {len(counted)}", sep="\n")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    model = args.out / "capablanca.json.gz"
    if not model.exists():
        subprocess.run([sys.executable, "-m", "iam", "train", str(CAPABLANCA), "--player", "Capablanca",
                        "--max-games", "40", "--train-positions", "300", "--split", "train", "-o", str(model)],
                       check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    pristine, inputs, work = args.out / "pristine", args.out / "inputs", args.out / "work"
    if not pristine.exists():
        build_inputs(pristine, model)
    inputs.mkdir(exist_ok=True)
    work.mkdir(exist_ok=True)
    rows = []
    wanted = [c for c in cases(inputs, model, work / "case") if any(part in c[0] for part in args.only.split(","))]
    for number, (kind, argv, seconds, stdin) in enumerate(wanted):
        rows.append(run_case(kind, argv, seconds, (inputs, pristine, work / "case"), stdin))
        print(number, rows[-1]["verdict"], rows[-1]["kind"], "|", rows[-1]["last_line"][:120], file=sys.stderr,
              flush=True)
        pd.DataFrame(rows).to_csv(args.out / "commands.csv", index=False)
    table = pd.DataFrame(rows, columns=["kind", "args", "exit", "verdict", "seconds", "last_line"])
    if len(table):
        print(table.groupby(["kind", "verdict"]).size().unstack(fill_value=0).to_string())
    if not args.no_interrupt:
        shutil.rmtree(work / "interrupted", ignore_errors=True)
        frame = pd.DataFrame(interrupt(pristine / "ten.pgn", model, work / "interrupted", args.only))
        frame.to_csv(args.out / "interrupted.csv", index=False)
        print(frame.to_string())
    failed = ["traceback", "hang", "unclear", "input changed", "device replaced"]
    return 1 if table["verdict"].isin(failed).any() else 0


if __name__ == "__main__":
    raise SystemExit(main())
