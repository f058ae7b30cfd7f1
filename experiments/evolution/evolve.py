"""The piece values a Kendall-Whitwell evolution found (``iam evolve``), judged twice: against the standard
values, and over the board.

From the run's folder (:func:`iam.evolution.load_generations`): the population's mean values at the start
(generation 0) and at the last generation, as ratios to the pawn against the standard ratios (the core's
middlegame values, :data:`iam.evolution.run.STANDARD`), each within 25% or not, and the means every few
generations. Then two matches (:func:`iam.evolution.matches.values_match`: the compiled search in-process,
a fixed node budget a move, every opening twice, each side White once): the evolved values (the last
generation's mean, rounded) against the unevolved ones (generation 0's mean: the random start the
evolution began from), and against the hand-set evaluation (the tables' own middlegame and endgame values).

A run of another genome (``iam evolve --genome squares`` or ``both``) is judged over the board the same way
(the evolved, unevolved and hand-set evaluations each with their square bonuses' scales; the ratio table
only when the genome holds the piece values), its means table listing every weight of the genome.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import chess
import pandas as pd

from experiments.common import ExperimentConfig, ExperimentResult
from iam.errors import DataError
from iam.evolution import load_generations
from iam.evolution.matches import values_match
from iam.evolution.run import STANDARD, genome_values
from search.chess.pst import PIECE_NAMES, SQUARE_NAMES

NAME = "evolve"
HELP = ("an evolution's piece values against the standard ones (or its square scales), and matches against the "
        "unevolved and hand-set evaluations")

__all__ = ["NAME", "HELP", "EvolveConfig", "ratio_table", "run"]

WITHIN = 0.25
"""How far a ratio to the pawn may be from the standard one and still count as found (a share)."""


@dataclass(frozen=True)
class EvolveConfig(ExperimentConfig):
    """Which run, and how its matches are played."""

    run: str = "evolution"
    """The folder of a run of ``iam evolve`` (finished generations are read; nothing is written there)."""
    openings: tuple[str, ...] = (chess.STARTING_FEN,)
    """FENs each match plays twice, one game with each colour."""
    nodes: int = 1000
    """Node budget of every move of the matches."""
    max_plies: int = 300
    """A match game still going after this many plies is scored a draw."""
    every: int = 20
    """The means table lists every this many generations (and the last)."""
    against: tuple[str, ...] = ("unevolved", "hand-set")
    """The matches played: the evolved evaluation against the unevolved one, the hand-set one, or both."""

    def __post_init__(self) -> None:
        if self.nodes < 1 or self.max_plies < 1 or self.every < 1:
            raise DataError(f"nodes, max_plies and every must be at least 1, not {self.nodes}, {self.max_plies}, "
                            f"{self.every}")
        if not self.openings:
            raise DataError("the matches need at least one opening")
        if not self.against or not set(self.against) <= set(_OPPONENTS):
            raise DataError(f"the matches are against {' and/or '.join(_OPPONENTS)}, not {', '.join(self.against)}")


_OPPONENTS = {"unevolved": "unevolved (generation 0 mean)", "hand-set": "hand-set"}


def ratio_table(start: pd.Series, last: pd.Series, spread: pd.Series) -> pd.DataFrame:
    """Per piece: the standard value and ratio, the start's and the last generation's means, the spread, the
    evolved ratio, its share of the standard ratio and whether it is within :data:`WITHIN` of it."""
    rows = []
    for name, standard in zip(PIECE_NAMES, STANDARD):
        ratio = last[name] / last["pawn"]
        share = ratio / (standard / STANDARD[0])
        rows.append({
            "piece": name, "standard": standard, "standard_ratio": standard / STANDARD[0],
            "start": start[name], "last": last[name], "spread": spread[name], "evolved_ratio": ratio,
            "against_standard": share, "within": bool(abs(share - 1) <= WITHIN + 1e-12),
        })
    return pd.DataFrame(rows)


def run(config: EvolveConfig) -> ExperimentResult:
    folder = Path(config.run)
    if not folder.is_dir():
        raise DataError(f"{folder} is not the folder of an evolution run")
    populations, pairs = load_generations(folder)
    if populations.empty or populations["generation"].max() < 1:
        raise DataError(f"{folder} holds no finished generation beyond the random start")
    names = [name for name in populations.columns if name in PIECE_NAMES + SQUARE_NAMES]
    genome = "pieces" if SQUARE_NAMES[0] not in names else "both" if "pawn" in names else "squares"
    means = populations.groupby("generation")[names].mean()
    last_generation = int(means.index.max())
    spread = populations[populations["generation"] == last_generation][names].std(ddof=0)
    ratios = (ratio_table(means.loc[0], means.loc[last_generation], spread) if "pawn" in names
              else pd.DataFrame(columns=["piece", "within"]))
    listed = [g for g in means.index if g % config.every == 0 or g == last_generation]
    trajectory = means.loc[listed].apply(lambda c: c.round(2 if c.name in SQUARE_NAMES else 0)).reset_index()
    evolved = [_rounded(name, v) for name, v in means.loc[last_generation].items()]
    unevolved = [_rounded(name, v) for name, v in means.loc[0].items()]
    matches = []
    opponents = {"unevolved": unevolved, "hand-set": None}
    for opponent, values in ((_OPPONENTS[name], opponents[name]) for name in _OPPONENTS if name in config.against):
        match = values_match(genome_values(genome, evolved), None if values is None else genome_values(genome, values),
                             config.openings, nodes=config.nodes, max_plies=config.max_plies, runtime=config.runtime)
        e = match.estimate
        matches.append({
            "evolved_against": opponent, "values": "tables" if values is None else " ".join(map(str, values)),
            "games": e.games, "wins": e.wins, "draws": e.draws, "losses": e.losses, "score": e.score,
            "elo": e.elo, "elo_low": e.low, "elo_high": e.high, "los": match.los,
        })
    match_table = pd.DataFrame(matches)
    cases = pairs["case"].value_counts().to_dict() if not pairs.empty else {}
    payload = {
        "run": str(folder), "genome": genome, "generations": last_generation, "evolved": evolved,
        "unevolved": unevolved,
        "nodes": config.nodes, "openings": len(config.openings), "within": WITHIN,
        "all_within": bool(ratios["within"].all()) if len(ratios) else None,
        "ordered": _ordered(means.loc[last_generation]) if "pawn" in names else None,
        "cases": {str(k): int(v) for k, v in cases.items()},
        "ratios": ratios.to_dict(orient="records"), "matches": match_table.to_dict(orient="records"),
    }
    return ExperimentResult(NAME, {"ratios": ratios, "means": trajectory, "matches": match_table}, payload,
                            _markdown(ratios, trajectory, match_table, last_generation))


def _rounded(name: str, value: float) -> float:
    """A piece value to whole centipawns, a square scale to hundredths (as the evolved evaluation is reported)."""
    return round(float(value), 2) if name in SQUARE_NAMES else round(float(value))


def _ordered(values: pd.Series) -> bool:
    """Whether the values order the pieces as the standard ones do: pawn < knight, bishop < rook < queen."""
    minor = (values["knight"], values["bishop"])
    return bool(values["pawn"] < min(minor) and max(minor) < values["rook"] < values["queen"])


def _markdown(ratios: pd.DataFrame, trajectory: pd.DataFrame, matches: pd.DataFrame, last: int) -> str:
    lines = [f"# Evolved evaluation (generation {last})"]
    if len(ratios):
        lines += ["", "| piece | standard | standard / pawn | start | evolved | spread (sd) | evolved / pawn | "
                  "against the standard ratio | within 25% |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in ratios.itertuples():
        lines.append(f"| {r.piece} | {r.standard} | {r.standard_ratio:.1f} | {r.start:.0f} | {r.last:.0f} | "
                     f"{r.spread:.0f} | {r.evolved_ratio:.2f} | {r.against_standard:.2f} | "
                     f"{'yes' if r.within else 'no'} |")
    names = list(trajectory.columns[1:])
    lines += ["", "| generation | " + " | ".join(names) + " |", "| ---: |" + " ---: |" * len(names)]
    for row in trajectory.itertuples(index=False):
        lines.append(f"| {row[0]:.0f} | " + " | ".join(
            f"{v:.2f}" if name in SQUARE_NAMES else f"{v:.0f}" for name, v in zip(names, row[1:])) + " |")
    lines += ["", "| evolved against | games | W | D | L | score | Elo (95% interval) | LOS |",
              "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
    for m in matches.itertuples():
        lines.append(f"| {m.evolved_against} | {m.games} | {m.wins} | {m.draws} | {m.losses} | {m.score:.1%} | "
                     f"{m.elo:+.0f} ({m.elo_low:+.0f} to {m.elo_high:+.0f}) | {m.los:.1%} |")
    return "\n".join(lines) + "\n"
