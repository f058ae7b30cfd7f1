"""Measuring a model on held-out games: the source notes' belief-band table and calibration.

The held-out protocol (:mod:`iam.games.heldout`, used everywhere so that figures compare):
the player's games in file order, game ``i`` is a test game when ``i % 5 == 4``;
training on N games means the first N training games. Positions are those where the
player is to move, the label is the move played.

For each test position the model's ranked beliefs are recorded
(:func:`score_positions`); :func:`summarise` turns those records into coverage,
top-1 and top-3 accuracy, expected calibration error and Brier score, and
:func:`band_table` into the source notes' table: per belief band, how many top
predictions fell in it and how many were right. Each position's top prediction
counts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np
import pandas as pd

from iam.errors import DataError
from iam.games.heldout import (  # the first two re-exported
    first_training_games,
    sample_test_games,
    test_games,
    training_games,
)
from iam.games.pgn import PlayerGame, check_player_games
from iam.measure.predictors import TRAINED, PredictorSettings, build_predictor
from iam.runtime import Runtime, map_in_order, runtime_from
from search.opponent.predictor import in_use

__all__ = [
    "BANDS",
    "ECE_BINS",
    "score_positions",
    "score_games",
    "position_record",
    "band_table",
    "summarise",
    "calibrated_ece",
    "EvaluationRun",
    "EvaluationReport",
    "TRAIN_SIZES",
    "SHOWN_FIGURES",
    "evaluate",
    "first_training_games",
    "sample_test_games",
]

BANDS: tuple[tuple[str, float, float], ...] = (
    ("<25%", 0.0, 0.25),
    ("25-30%", 0.25, 0.30),
    ("30-40%", 0.30, 0.40),
    ("40-50%", 0.40, 0.50),
    (">50%", 0.50, np.inf),
)
"""The source notes' belief bands: (label, lower bound inclusive, upper bound exclusive)."""

ECE_BINS = 10
"""Equal-width bins of the expected calibration error."""

RECORD_COLUMNS = (
    "game",
    "ply",
    "move",
    "candidates",
    "top_move",
    "top_belief",
    "hit",
    "top3",
    "played_belief",
    "belief_mass",
    "sum_squared_beliefs",
)


def score_positions(model, games: Sequence[PlayerGame], *, progress=None) -> pd.DataFrame:
    """One record per position where the player is to move in ``games`` (see RECORD_COLUMNS).

    ``model`` is anything with ``predict_proba(board) -> {move: belief}``;
    ``progress`` optionally wraps the game iterator (a progress bar).
    """
    games = check_player_games(games, "score_positions")
    records = []
    iterator = progress(games) if progress else games
    for game in iterator:
        board = game.board()
        for ply, move in enumerate(game.moves):
            if board.turn == game.color:
                records.append(position_record(game.index, ply, move, model.predict_proba(board)))
            board.push(move)
    return pd.DataFrame.from_records(records, columns=RECORD_COLUMNS)


def score_games(model, games: Sequence[PlayerGame], *, runtime: Runtime = Runtime()) -> pd.DataFrame:
    """:func:`score_positions` with the games cut into pieces for the runtime's local processes or Dask scheduler.

    The pieces keep the games' order, so the records are those of one serial pass; the model
    travels to each piece, so it must pickle (a model holding an engine process does not).
    """
    games = check_player_games(games, "score_games")
    runtime = runtime_from(runtime)
    if (runtime.jobs == 1 and not runtime.distributed) or len(games) < 2:
        return score_positions(model, games)
    pieces = np.array_split(np.arange(len(games)), min(len(games), runtime.workers * 3))
    frames = map_in_order(score_positions, [(model, [games[i] for i in piece.tolist()]) for piece in pieces], runtime)
    return pd.concat(list(frames), ignore_index=True)


def position_record(game: int, ply: int, move: chess.Move, beliefs: dict[chess.Move, float]) -> tuple:
    """One row of RECORD_COLUMNS: a position's ranked beliefs (highest first) against the move played."""
    ranked = list(beliefs)
    values = np.fromiter(beliefs.values(), dtype=np.float64, count=len(beliefs))
    top = ranked[0] if ranked else None
    return (
        game,
        ply,
        move.uci(),
        len(ranked),
        top.uci() if top else "",
        float(values[0]) if len(values) else np.nan,
        bool(top == move),
        move in ranked[:3],
        float(beliefs.get(move, 0.0)),
        float(values.sum()),
        float(np.square(values).sum()),
    )


def band_table(records: pd.DataFrame) -> pd.DataFrame:
    """The source notes' table: per belief band, top predictions, hits and hit rate."""
    predicted = records[records["candidates"] > 0]
    rows = []
    for label, low, high in BANDS:
        inside = predicted[(predicted["top_belief"] >= low) & (predicted["top_belief"] < high)]
        hits = int(inside["hit"].sum())
        rows.append(
            {
                "band": label,
                "predictions": len(inside),
                "hits": hits,
                "rate": hits / len(inside) if len(inside) else np.nan,
                "mean_belief": float(inside["top_belief"].mean()) if len(inside) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def summarise(records: pd.DataFrame) -> dict[str, float]:
    """Coverage, top-1, top-3, calibration (ECE, Brier) and log loss of a set of records.

    ``ece`` and ``brier`` concern each position's top prediction (its belief
    against whether it was the move played), the quantity the band table shows;
    ``brier_moves`` is the multi-class Brier score over all moves of a position
    (moves without a belief count as 0) and ``log_loss`` uses the belief of the
    move played, floored at 1e-4. Accuracies are over all test positions.
    """
    n = len(records)
    if n == 0:
        return {"test_positions": 0, "coverage": np.nan, "top1": np.nan, "top3": np.nan, "ece": np.nan, "brier": np.nan}
    predicted = records[records["candidates"] > 0]
    confidence = predicted["top_belief"].to_numpy(dtype=np.float64)
    correct = predicted["hit"].to_numpy(dtype=np.float64)
    played = records["played_belief"].to_numpy(dtype=np.float64)
    return {
        "test_positions": n,
        "coverage": len(predicted) / n,
        "top1": float(records["hit"].mean()),
        "top3": float(records["top3"].mean()),
        "ece": _expected_calibration_error(confidence, correct),
        "brier": float(np.mean((confidence - correct) ** 2)) if len(predicted) else np.nan,
        "brier_moves": float(np.mean(records["sum_squared_beliefs"] - 2 * played + 1)),
        "log_loss": float(-np.mean(np.log(np.maximum(played, 1e-4)))),
        "mean_top_belief": float(confidence.mean()) if len(predicted) else np.nan,
    }


def _expected_calibration_error(confidence: np.ndarray, correct: np.ndarray) -> float:
    if len(confidence) == 0:
        return np.nan
    bins = np.minimum((confidence * ECE_BINS).astype(int), ECE_BINS - 1)
    counts = np.bincount(bins, minlength=ECE_BINS)
    gap = np.abs(
        np.bincount(bins, weights=correct, minlength=ECE_BINS)
        - np.bincount(bins, weights=confidence, minlength=ECE_BINS)
    )
    return float(gap.sum() / counts.sum())


def calibrated_ece(confidence: np.ndarray, *, draws: int = 2000, seed: int = 0) -> np.ndarray:
    """The ECE a perfectly calibrated predictor with these top beliefs shows, in ``draws`` samples.

    ECE over a few thousand positions is not zero even for perfect beliefs: each bin's
    hit rate is a sample. Here each top prediction comes true with exactly its belief,
    so the returned values (one per draw) are the noise floor against which a measured
    ECE is read.
    """
    confidence = np.asarray(confidence, dtype=np.float64)
    if len(confidence) == 0:
        return np.full(draws, np.nan)
    bins = np.minimum((confidence * ECE_BINS).astype(int), ECE_BINS - 1)
    members = np.zeros((len(confidence), ECE_BINS))
    members[np.arange(len(confidence)), bins] = 1.0
    hits = (np.random.default_rng(seed).random((draws, len(confidence))) < confidence).astype(np.float64)
    gap = np.abs(hits @ members - confidence @ members)
    return gap.sum(axis=1) / len(confidence)


@dataclass(frozen=True)
class EvaluationRun:
    """One predictor at one training size: its records, band table and summary figures."""

    train_games: int
    records: pd.DataFrame
    predictor: str = "iam"

    def __repr__(self) -> str:
        summary = self.summary
        return (
            f"EvaluationRun({self.predictor!r}, train_games={self.train_games}, "
            f"test_positions={summary['test_positions']}, top1={summary['top1']:.3f}, top3={summary['top3']:.3f})"
        )

    @property
    def bands(self) -> pd.DataFrame:
        return band_table(self.records)

    @property
    def summary(self) -> dict[str, float]:
        return summarise(self.records)

    def to_dict(self) -> dict:
        """The JSON shape of ``iam evaluate``'s runs."""
        summary = self.summary
        return {
            "predictor": self.predictor,
            "train_games": self.train_games,
            **{key: summary[key] for key in summary},
            "bands": [
                {"band": row.band, "predictions": int(row.predictions), "hits": int(row.hits), "rate": _float(row.rate)}
                for row in self.bands.itertuples()
            ],
        }


def _float(value: float) -> float | None:
    return None if value != value else float(value)


SHOWN_FIGURES = ("predictor", "train_games", "test_positions", "top1", "top3", "ece", "log_loss")
"""The columns of a printed :class:`EvaluationReport` (:meth:`EvaluationReport.summary_frame` has them all)."""

TRAIN_SIZES = (12, 22, 80, None)
"""The source notes' training sizes (12, 22, 80 games) and all training games (None)."""


@dataclass(frozen=True)
class EvaluationReport:
    """Runs of one player's held-out evaluation, one per training size."""

    player: str
    test_games: int
    runs: list[EvaluationRun]

    def __str__(self) -> str:
        """The summary figures of each run, one row per run."""
        games = f"{self.test_games} test game{'' if self.test_games == 1 else 's'}"
        head = f"{self.player}: {games}, {len(self.runs)} run{'' if len(self.runs) == 1 else 's'}"
        if not self.runs:
            return head
        table = self.summary_frame()[list(SHOWN_FIGURES)].rename(columns={"test_positions": "positions"})
        return head + "\n" + table.to_string(index=False, float_format=lambda value: f"{value:.3f}")

    __repr__ = __str__

    def to_dict(self) -> dict:
        """The JSON of ``iam evaluate``: player and one entry per run."""
        return {"player": self.player, "test_games": self.test_games, "runs": [run.to_dict() for run in self.runs]}

    def summary_frame(self) -> pd.DataFrame:
        """One row per run (predictor, training size): coverage, accuracies and calibration."""
        return pd.DataFrame(
            [{"predictor": run.predictor, "train_games": run.train_games, **run.summary} for run in self.runs]
        )

    def band_frame(self) -> pd.DataFrame:
        """The belief-band table in long form: one row per (predictor, training size, band)."""
        frames = [run.bands.assign(predictor=run.predictor, train_games=run.train_games) for run in self.runs]
        columns = ["predictor", "train_games", "band", "predictions", "hits", "rate", "mean_belief"]
        return pd.concat(frames, ignore_index=True)[columns] if frames else pd.DataFrame(columns=columns)

    def position_frame(self) -> pd.DataFrame:
        """Every scored test position of every run."""
        return pd.concat(
            [run.records.assign(predictor=run.predictor, train_games=run.train_games) for run in self.runs],
            ignore_index=True,
        )


def evaluate(
    games: Sequence[PlayerGame],
    *,
    player: str,
    train_sizes: Sequence[int | None] = TRAIN_SIZES,
    model_params: dict | None = None,
    predictors: Sequence[str] = ("iam",),
    settings: PredictorSettings | None = None,
    runtime: Runtime = Runtime(),
    progress=None,
) -> EvaluationReport:
    """Fit each predictor on the first N training games for each N and score all test games.

    ``games`` are the player's games with their protocol numbers (all splits);
    ``None`` in ``train_sizes`` means all training games; sizes beyond the training
    games become all of them, once. A predictor that does not
    learn (a search's or engine's best move, random) runs once, labelled with the
    largest size. ``model_params`` are the IAM model's parameters (shorthand for
    ``settings.iam``). Runs are independent and go where ``runtime`` says: its worker
    processes or its Dask scheduler (else ``$IAM_SCHEDULER``; :func:`~iam.runtime.runtime_from`);
    ``progress`` optionally wraps the runs as they finish, in order (a progress bar).
    DataError when the games hold no test game or no training game (games read with
    ``split="train"`` or ``split="test"`` hold one split only).
    """
    games = check_player_games(games, "evaluate")
    settings = settings or PredictorSettings(iam=dict(model_params or {}))
    test = test_games(games)
    training_count = len(training_games(games))
    if not test or not training_count:
        missing = "test" if not test else "training"
        raise DataError(
            f"evaluate needs the player's games of both splits, and these {len(games)} hold no {missing} game "
            '(read them with split="all")'
        )
    sizes = list(dict.fromkeys(training_count if size is None else min(size, training_count) for size in train_sizes))
    work = []
    for predictor in predictors:
        for size in sizes if predictor in TRAINED else [max(sizes)]:
            work.append((predictor, first_training_games(games, size), test, settings))
    finished = map_in_order(_run, work, runtime_from(runtime))
    runs = list(progress(finished) if progress else finished)
    return EvaluationReport(player=player, test_games=len(test), runs=runs)


def _run(
    predictor: str, training: list[PlayerGame], test: list[PlayerGame], settings: PredictorSettings
) -> EvaluationRun:
    if not training:
        raise ValueError("no training games")
    with in_use(build_predictor(predictor, training, settings)) as model:
        records = score_positions(model, test)
    return EvaluationRun(train_games=len(training), records=records, predictor=predictor)
