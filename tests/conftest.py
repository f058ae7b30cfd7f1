"""Shared fixtures: small game sets from the bundled data and tiny hand-written PGNs."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

# OpenMP's idle threads (LightGBM's, in the residual trees of the population prior) sleep instead of spinning:
# with two test workers on two cores, spinning threads take the cores from the thread that works, and a small
# boosting run takes several times as long. Read when the OpenMP runtime loads, so set before anything loads it;
# the number of threads, and so every figure, is unchanged.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# One BLAS thread per process: the tests' matrices are small, and with two test workers on two cores a second
# OpenBLAS thread only spins waiting for a core (a ranker's fit costs about three times the CPU with it). Every
# figure is the same with one thread or two. Read when NumPy and SciPy load, so set before they do; processes the
# tests start inherit it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Python's bytecode caches are written even where the environment turns them off (PYTHONDONTWRITEBYTECODE): the
# suite starts dozens of Python processes (the CLI, the UCI engine, Dask workers), each of which would otherwise
# compile the toolkit's modules again, and each test worker would rewrite every test module's asserts again.
# Processes the tests start inherit it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

from iam.games.bundled import bundled_pgn, default_pgn, manifest  # noqa: E402
from iam.games.pgn import PlayerGame, load_player_games  # noqa: E402
from iam.games.player_games import read_games  # noqa: E402

DATA = Path(__file__).parent / "data"
T = TypeVar("T")


def made_once_per_run(tmp_path_factory, name: str, make: Callable[[Path], object], *, wait: bool = True) -> Path | None:
    """The file ``name`` that ``make(path)`` writes, made once per run: under pytest-xdist the first worker to need
    it makes it (another waits on a lock; with ``wait`` False, gets None at once) in the run's own temporary
    folder, which no other run reads, under a partial name until it is whole; without xdist, in a fresh folder of
    this process."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        path = tmp_path_factory.mktemp("made") / name
        make(path)
        return path
    folder = tmp_path_factory.getbasetemp().parent  # this run's folder, holding each worker's own
    path = folder / name
    with open(folder / f"{name}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            return None  # only with wait False: another worker is making it
        if not path.exists():
            partial = folder / f"partial-{name}"
            make(partial)
            partial.rename(path)
    return path


def shared_by_workers(tmp_path_factory, name: str, compute: Callable[[], T], *, wait: bool = True) -> T | None:
    """``compute()`` once per run for every pytest-xdist worker of the run (:func:`made_once_per_run`): the worker
    that computes it keeps it pickled for the others, which unpickle an equal copy (None at once, with ``wait``
    False, while another worker computes it). Without xdist, ``compute()``."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return compute()
    computed: list[T] = []

    def keep(path: Path) -> None:
        computed.append(compute())
        path.write_bytes(pickle.dumps(computed[0], protocol=pickle.HIGHEST_PROTOCOL))

    path = made_once_per_run(tmp_path_factory, f"shared-{name}.pickle", keep, wait=wait)
    if path is None:
        return None
    return computed[0] if computed else pickle.loads(path.read_bytes())


@pytest.fixture(scope="session")
def made_once(tmp_path_factory) -> Callable[[str, Callable[[Path], object]], Path]:
    """``made_once(name, make)``: :func:`made_once_per_run` for a fixture of another folder's conftest."""
    return lambda name, make: made_once_per_run(tmp_path_factory, name, make)


@pytest.fixture(scope="session")
def shared(tmp_path_factory) -> Callable[[str, Callable[[], T]], T]:
    """``shared(name, compute)``: :func:`shared_by_workers` for a fixture of another folder's conftest."""
    return lambda name, compute: shared_by_workers(tmp_path_factory, name, compute)


class BundledMasters:
    """The bundled masters' games, each master's as ``read_games`` of his bundled file gives them (all splits,
    protocol numbers intact; read-only: the tests share them), read once per run for every test worker
    (:func:`shared_by_workers`)."""

    def __init__(self, tmp_path_factory) -> None:
        self.tmp_path_factory = tmp_path_factory
        self.entries = manifest()
        self.read: dict[int, list[PlayerGame]] = {}

    def __call__(self, player: str) -> list[PlayerGame]:
        """The games of the master called ``player`` in the manifest."""
        (number,) = [number for number, entry in enumerate(self.entries) if entry.player == player]
        found = self._take(number, wait=True)
        assert found is not None
        return found

    def every(self) -> dict[str, list[PlayerGame]]:
        """Every master's games by name, in manifest order. Two workers that need them at once read half of them
        each: a worker that finds a master taken by the other reads the next one and comes back for him."""
        waiting = [number for number in range(len(self.entries)) if self._take(number, wait=False) is None]
        for number in waiting:
            self._take(number, wait=True)
        return {entry.player: self.read[number] for number, entry in enumerate(self.entries)}

    def _take(self, number: int, *, wait: bool) -> list[PlayerGame] | None:
        """Master ``number``'s games, read or kept by a worker; None when ``wait`` is False and the other worker
        is reading them."""
        if number not in self.read:
            entry = self.entries[number]
            found = shared_by_workers(
                self.tmp_path_factory, f"master-{number}",
                lambda: read_games([bundled_pgn(entry.file)], player=entry.player, quiet=True)[0], wait=wait,
            )
            if found is None:
                return None  # the other worker is reading them
            self.read[number] = found
        return self.read[number]


@pytest.fixture(scope="session")
def bundled_master(tmp_path_factory) -> BundledMasters:
    """``bundled_master(player)``: a bundled master's games (``bundled_master("Capablanca")``), read once per run
    (:class:`BundledMasters`; read-only)."""
    return BundledMasters(tmp_path_factory)


@pytest.fixture(scope="session")
def bundled_master_games(bundled_master) -> dict[str, list[PlayerGame]]:
    """:func:`~iam.games.player_games.bundled_masters` (read-only: its games are shared by the tests), read once per
    run (:meth:`BundledMasters.every`)."""
    return bundled_master.every()


@pytest.fixture(scope="session")
def botvinnik_games(bundled_master):
    """All of Botvinnik's bundled games (protocol numbers intact), read once per run."""
    return bundled_master("Botvinnik")


@pytest.fixture(scope="session")
def small_model(botvinnik_games, tmp_path_factory):
    """A model fitted on Botvinnik's first 60 training games (fast, shared, read-only), fitted once per run."""
    from iam.chunks.model import OpponentModel
    from iam.measure.evaluation import first_training_games

    def fit():
        return OpponentModel(belief_positions=400).fit(first_training_games(botvinnik_games, 60))

    return shared_by_workers(tmp_path_factory, "small-model", fit)


@pytest.fixture(scope="session")
def bundled_head(tmp_path_factory):
    """``bundled_head(n)``: Botvinnik's first ``n`` bundled games as a PGN file of their own."""
    text = default_pgn().read_text(encoding="utf-8")

    def write(count: int) -> Path:
        path = tmp_path_factory.mktemp("pgn") / f"botvinnik{count}.pgn"
        path.write_text("".join("[Event " + game for game in text.split("[Event ")[1 : count + 1]), encoding="utf-8")
        return path

    return write


@pytest.fixture()
def tiny_pgn() -> Path:
    return DATA / "tiny.pgn"


def _styled_game(rng, prefers: str, color: bool, plies: int):
    """A game where the player of ``color`` mostly moves pieces of one kind and the other side plays at random."""
    import chess
    import chess.pgn

    kinds = {"pawns": chess.PAWN, "knights": chess.KNIGHT}
    board = chess.Board()
    for _ in range(plies):
        moves = sorted(board.legal_moves, key=chess.Move.uci)
        if not moves:
            break
        if board.turn == color:
            liked = [m for m in moves if board.piece_type_at(m.from_square) == kinds[prefers]]
            if liked and rng.random() < 0.8:
                moves = liked
        board.push(moves[int(rng.integers(len(moves)))])
    return chess.pgn.Game.from_board(board)


@pytest.fixture(scope="session")
def synthetic_players(tmp_path_factory) -> dict[str, Path]:
    """Two invented players with distinct styles, 30 games each: name -> PGN file.

    "Alpha Ann" mostly moves pawns, "Beta Bob" mostly knights; their opponents
    ("Rand N") play at random. Each file holds only its player's games.
    """
    import numpy as np

    folder = tmp_path_factory.mktemp("synthetic")
    files = {}
    for number, (name, prefers) in enumerate((("Alpha Ann", "pawns"), ("Beta Bob", "knights"))):
        rng = np.random.default_rng(100 + number)
        texts = []
        for i in range(30):
            color = i % 2 == 0
            game = _styled_game(rng, prefers, color, 40)
            game.headers["White"], game.headers["Black"] = (name, f"Rand {i}") if color else (f"Rand {i}", name)
            game.headers["Date"] = f"{1940 + i // 2}.01.01"  # 20 games in the 1940s, 10 in the 1950s
            texts.append(str(game))
        files[name] = folder / f"{name.split()[0].lower()}.pgn"
        files[name].write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    return files


def _start(argv: list[str]) -> subprocess.Popen:
    """A process of its own session that imports this checkout's toolkit (the tasks' code)."""
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(
        [sys.executable, "-m", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env=env,
    )


@contextlib.contextmanager
def dask_cluster(folder: Path, workers: int = 2) -> Iterator[str]:
    """A Dask scheduler and ``workers`` one-thread workers (each under a nanny) on localhost, started with
    Dask's own commands as separate processes; yields the scheduler's address, and kills them all at the end."""
    distributed = pytest.importorskip("distributed")
    scheduler_file = folder / "scheduler.json"
    processes = []
    try:
        processes.append(_start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
                                 "--scheduler-file", str(scheduler_file), "--no-dashboard"]))
        for _ in range(workers):  # started with the scheduler: a worker waits for the scheduler's file itself
            processes.append(_start(["distributed.cli.dask_worker", "--nthreads", "1", "--nworkers", "1", "--nanny",
                                     "--no-dashboard", "--scheduler-file", str(scheduler_file)]))
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_text().strip():
            if time.monotonic() > deadline or processes[0].poll() is not None:
                pytest.fail("the Dask scheduler did not start")
            time.sleep(0.05)
        address = json.loads(scheduler_file.read_text())["address"]
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for process in reversed(processes):  # each in a session of its own: a nanny, its worker and their engines
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        for process in processes:
            process.wait(timeout=30)


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """A Dask scheduler and two workers on localhost, shared by the tests; yields the scheduler's address."""
    with dask_cluster(tmp_path_factory.mktemp("cluster")) as address:
        yield address


@pytest.fixture(scope="session")
def start_dask_cluster():
    """``start_dask_cluster(folder, workers=2)``: a cluster of a test module's own (a context manager)."""
    return dask_cluster


@pytest.fixture(scope="session")
def synthetic_models(synthetic_players, tmp_path_factory) -> dict[str, object]:
    """IAM models of both invented players (``belief_positions=200``), fitted on their training games only, once per
    run (the test workers share them; read-only): name -> model."""
    from iam.chunks.model import OpponentModel

    def fit() -> dict[str, object]:
        models = {}
        for name, pgn in synthetic_players.items():
            games, _ = load_player_games([pgn], player=name, split="train")
            models[name] = OpponentModel(player=name, belief_positions=200).fit(games)
        return models

    return shared_by_workers(tmp_path_factory, "synthetic-models", fit)


@pytest.fixture(scope="session")
def synthetic_model_files(synthetic_models, tmp_path_factory) -> dict[str, Path]:
    """IAM model files of both invented players, fitted on their training games only (:func:`synthetic_models`)."""
    folder = tmp_path_factory.mktemp("models")
    paths = {}
    for name, model in synthetic_models.items():
        model.save(folder / f"{name}.json")
        paths[name] = folder / f"{name}.json"
    return paths
