"""A Kendall-Whitwell evolution of the play search's depth-and-ordering module, judged by nodes to solve.

An individual is a module (:class:`search.chess.modules.DepthOrdering`: depth rules and
move-order weights, as floats that are rounded and clipped to the genes' bounds). Its
fitness is the nodes it needs to solve development positions: each position is traced to a
node cap and counted from the nodes it is solved from (:func:`search.chess.modules.solve.first_solved`),
an unsolved one at twice the cap. A pair's two "games" are two halves of the generation's
sample of positions: on each half the module with the lower mean ``log2`` of those nodes
wins, by more than ``margin``; closer is a draw. Kendall and Whitwell's rule
(:func:`search.evolution.apply_results`) then makes the next generation, every gene
mutated by the population's spread. The logarithm weighs a position solved in half the
nodes the same whether it is easy or hard, as the solve-rate curve against a node budget
does.

Generation 0 is the play search's module and ``population - 1`` others drawn around it:
each gene the default plus a uniform draw over ``spread`` times its range. Each generation
draws its sample of ``sample`` positions from the pool and its pairs from
``default_rng([seed, g])``; the searches count nodes, never time, so a run is a function of
its config. A module's count on a position is kept once found (searches are deterministic).

After the last generation every distinct module of the population, and the play search's,
is measured on the whole pool, traced to ``final_cap`` nodes (``cap`` when unset). With
``pick="cost"`` the lowest mean ``log2`` of nodes is the run's pick; with ``pick="rate"`` the
fewest nodes to solve as many pool positions as the play search's module does at
``final_cap`` (:func:`search.chess.modules.solve.nodes_to_rate`; a module that never gets
there comes last; ties go to the lower mean), which is the measure of the results: nodes at
equal solve rate. :attr:`ModuleRun.best` is the play search's own module when no evolved
one does better.

:func:`split_suite` splits a suite in two by position number, a development half to evolve
on and a measured half never seen by the evolution.

:func:`compare_modules` measures modules on a suite (Win At Chess in the results): each
position's nodes to be solved, the solve rate against the node budget, and the nodes each
module needs to reach a given rate.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from iam.errors import ParameterError
from search.chess.modules import GENES, DepthOrdering, ModuleSearch, bounds
from search.chess.modules.solve import SuitePosition, first_solved, nodes_to_rate, solve_curve, trace
from search.evolution import apply_results, random_pairs

__all__ = [
    "ModuleEvolutionConfig", "ModuleRun", "compare_modules", "development_pool", "evolve_modules", "nodes_to_reach",
    "rate_table", "split_suite", "write_run",
]


@dataclass(frozen=True)
class ModuleEvolutionConfig:
    """A module evolution's settings."""

    population: int = 8
    generations: int = 15
    sample: int = 12
    """Development positions per generation (two halves: a pair's two games)."""
    cap: int = 30_000
    """Nodes each position is traced to (an unsolved one counts twice this)."""
    margin: float = 0.05
    """A half is won by a mean log2 of nodes lower by more than this (0.05: about 3.5% fewer nodes)."""
    spread: float = 0.25
    """Generation 0's draws around the default: uniform over this share of each gene's range, either side."""
    seed: int = 0
    table_size: int = 1 << 18
    """Entries of each search's transposition table (node counts depend on it)."""
    pick: str = "cost"
    """How the last population is judged on the whole pool: ``cost`` (mean log2 nodes) or ``rate`` (nodes to
    reach the play search's solve rate)."""
    final_cap: int | None = None
    """Nodes each pool position is traced to for the pick (None: ``cap``)."""

    def __post_init__(self) -> None:
        _check(self.population >= 2, "population", self.population, "at least 2")
        _check(self.generations >= 0, "generations", self.generations, "at least 0")
        _check(self.sample >= 2 and self.sample % 2 == 0, "sample", self.sample, "an even number, at least 2")
        _check(self.cap >= 1, "cap", self.cap, "at least 1")
        _check(self.margin >= 0, "margin", self.margin, "at least 0")
        _check(0 <= self.spread <= 1, "spread", self.spread, "from 0 to 1")
        _check(self.table_size >= 1, "table_size", self.table_size, "at least 1")
        _check(self.pick in ("cost", "rate"), "pick", self.pick, "cost or rate")
        _check(self.final_cap is None or self.final_cap >= 1, "final_cap", self.final_cap, "at least 1")


@dataclass(frozen=True)
class ModuleRun:
    """An evolution's record: the population of every generation, the pairs, and the pick."""

    population: pd.DataFrame
    """One row per individual per generation: its genes (rounded) and its mean log2 nodes on the sample."""
    pairs: pd.DataFrame
    """One row per pair: the two individuals, A's half costs and scores, the rule's case."""
    final: pd.DataFrame
    """The last population's distinct modules and the play search's on the whole pool at the final cap: genes,
    mean log2 nodes, positions solved, nodes to reach the play search's rate (``to_rate``, empty: never), whether
    it is the play search's; the pick first."""
    best: DepthOrdering


def _check(ok: bool, parameter: str, value: object, allowed: str) -> None:
    if not ok:
        raise ParameterError(parameter, value, allowed)


class _Judge:
    """Each module's solve nodes on each pool position, found once (the searches are deterministic)."""

    def __init__(self, pool: Sequence[SuitePosition], cap: int, table_size: int) -> None:
        self.pool, self.cap = pool, cap
        self.search = ModuleSearch(DepthOrdering.default(), table_size=table_size)
        self.known: dict[tuple[DepthOrdering, int], int | None] = {}

    def solved(self, module: DepthOrdering, index: int) -> int | None:
        if (module, index) not in self.known:
            self.search.module = module
            position = self.pool[index]
            self.known[module, index] = first_solved(trace(self.search, position.board, self.cap), position.best)
        return self.known[module, index]

    def cost(self, module: DepthOrdering, indices: Sequence[int]) -> float:
        """Mean log2 of the nodes ``module`` is solved from on the positions (unsolved: twice the cap)."""
        nodes = [self.solved(module, i) for i in indices]
        return float(np.mean([np.log2(max(n, 1) if n is not None else 2 * self.cap) for n in nodes]))


def development_pool(
    suite: Sequence[SuitePosition], cap: int, *, least: int = 1000, table_size: int = 1 << 18,
) -> tuple[list[SuitePosition], pd.DataFrame]:
    """The positions worth evolving on: those the play search does not solve within ``least`` nodes.

    A position solved from fewer nodes is solved at once by any module and tells them apart
    by little. Returns the kept positions and every position's row (name, the default
    module's solve nodes at ``cap``, kept).
    """
    search = ModuleSearch(DepthOrdering.default(), table_size=table_size)
    rows = []
    for position in suite:
        nodes = first_solved(trace(search, position.board, cap), position.best)
        rows.append({"position": position.name, "default_nodes": nodes, "kept": nodes is None or nodes >= least})
    table = pd.DataFrame(rows)
    return [p for p, keep in zip(suite, table["kept"]) if keep], table


def _start(config: ModuleEvolutionConfig) -> np.ndarray:
    low, high = bounds()
    rng = np.random.default_rng([config.seed, 0, 0])
    default = DepthOrdering.default().vector()
    draws = rng.uniform(-config.spread, config.spread, size=(config.population - 1, len(GENES))) * (high - low)
    return np.vstack([default, np.clip(default + draws, low, high)])


def _scores(costs_a: tuple[float, float], costs_b: tuple[float, float], margin: float) -> tuple[float, float]:
    """A's scores on the two halves: 1 when its cost is lower by more than ``margin``, 0 when higher, else 0.5."""
    return tuple(1.0 if a < b - margin else 0.0 if b < a - margin else 0.5  # type: ignore[return-value]
                 for a, b in zip(costs_a, costs_b))


def evolve_modules(
    pool: Sequence[SuitePosition], config: ModuleEvolutionConfig, *,
    on_generation: Callable[[int, pd.DataFrame], None] | None = None,
) -> ModuleRun:
    """Evolve modules on the development ``pool`` (at least ``config.sample`` positions)."""
    _check(len(pool) >= config.sample, "pool", len(pool), f"at least {config.sample} positions (the sample)")
    judge = _Judge(pool, config.cap, config.table_size)
    low, high = bounds()
    population = _start(config)
    rows: list[dict] = []
    pair_rows: list[dict] = []
    for generation in range(config.generations):
        rng = np.random.default_rng([config.seed, generation + 1])
        sample = [int(i) for i in rng.choice(len(pool), size=config.sample, replace=False)]
        halves = (sample[: config.sample // 2], sample[config.sample // 2:])
        modules = [DepthOrdering.from_vector(v) for v in population]
        costs = [(judge.cost(m, halves[0]), judge.cost(m, halves[1])) for m in modules]
        for i, module in enumerate(modules):
            cost = float(np.mean(costs[i]))
            rows.append({"generation": generation, "individual": i, **module.as_dict(), "cost": cost})
        pairs = random_pairs(range(len(population)), rng)
        results = [_scores(costs[a], costs[b], config.margin) for a, b in pairs]
        population, outcomes = apply_results(population, pairs, results, rng, bounds=None)
        population = np.clip(population, low, high)
        for outcome, (a, b) in zip(outcomes, pairs):
            pair_rows.append({"generation": generation, "a": a, "b": b, "cost_a": costs[a], "cost_b": costs[b],
                              "scores": outcome.scores, "case": outcome.case, "winner": outcome.winner})
        if on_generation is not None:
            on_generation(generation, pd.DataFrame(rows[-len(modules):]))
    final_cap = config.final_cap or config.cap
    final_judge = judge if final_cap == config.cap else _Judge(pool, final_cap, config.table_size)
    final = _final(final_judge, population, config.pick)
    for i, vector in enumerate(population):
        module = DepthOrdering.from_vector(vector)
        rows.append({"generation": config.generations, "individual": i, **module.as_dict(), "cost": float("nan")})
    best = DepthOrdering.from_dict({gene.name: int(final.iloc[0][gene.name]) for gene in GENES})
    return ModuleRun(pd.DataFrame(rows), pd.DataFrame(pair_rows), final, best)


def _final(judge: _Judge, population: np.ndarray, pick: str) -> pd.DataFrame:
    """The population's distinct modules and the play search's on the whole pool, the pick first."""
    default = DepthOrdering.default()
    distinct = list(dict.fromkeys([*(DepthOrdering.from_vector(v) for v in population), default]))
    everything = range(len(judge.pool))
    rate = sum(judge.solved(default, i) is not None for i in everything) / len(judge.pool)
    rows = []
    for module in distinct:
        solved = [judge.solved(module, i) for i in everything]
        rows.append({**module.as_dict(), "cost": judge.cost(module, everything), "default": module == default,
                     "solved": sum(n is not None for n in solved), "to_rate": nodes_to_rate(solved, rate)})
    table = pd.DataFrame(rows)
    table["to_rate"] = table["to_rate"].astype("Int64")
    keys = ["cost"] if pick == "cost" else ["to_rate", "cost"]
    return table.sort_values(keys, kind="stable", na_position="last").reset_index(drop=True)


def split_suite(suite: Sequence[SuitePosition]) -> tuple[list[SuitePosition], list[SuitePosition]]:
    """The development half (the 1st, 3rd, 5th... positions) and the measured half (the 2nd, 4th...)."""
    return list(suite[0::2]), list(suite[1::2])


def compare_modules(
    suite: Sequence[SuitePosition], modules: dict[str, DepthOrdering], cap: int, *, table_size: int = 1 << 18,
) -> pd.DataFrame:
    """Each position's solve nodes for each module (a column per module; empty: not solved within ``cap``)."""
    search = ModuleSearch(DepthOrdering.default(), table_size=table_size)
    table = pd.DataFrame({"position": [p.name for p in suite]})
    for name, module in modules.items():
        search.module = module
        table[name] = pd.array([first_solved(trace(search, p.board, cap), p.best) for p in suite], dtype="Int64")
    return table


def rate_table(solved: pd.DataFrame, budgets: Sequence[int]) -> pd.DataFrame:
    """The solve rate of each module column of :func:`compare_modules` at each budget."""
    columns = [c for c in solved.columns if c != "position"]
    table = pd.DataFrame({"nodes": list(budgets)})
    for name in columns:
        table[name] = solve_curve(_nodes(solved[name]), budgets)
    return table


def nodes_to_reach(solved: pd.DataFrame, rate: float) -> dict[str, int | None]:
    """The budget each module column needs to solve the share ``rate`` of the positions (None: not within the cap)."""
    return {c: nodes_to_rate(_nodes(solved[c]), rate) for c in solved.columns if c != "position"}


def _nodes(column: pd.Series) -> list[int | None]:
    return [None if pd.isna(n) else int(n) for n in column]


def write_run(run: ModuleRun, out: Path | str) -> None:
    """The run's tables (CSV) and its pick (JSON) in the folder ``out``."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    run.population.to_csv(folder / "population.csv", index=False)
    run.pairs.to_csv(folder / "pairs.csv", index=False)
    run.final.to_csv(folder / "final.csv", index=False)
    (folder / "best.json").write_text(json.dumps({"format": "iam-depth-ordering", "version": 1,
                                                  "module": run.best.as_dict()}, indent=1) + "\n")
