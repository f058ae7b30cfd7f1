"""``iam evolve``: evolve the chess core's evaluation (piece values, square bonuses' scales) by self-play
(Kendall and Whitwell's rule, in demes)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from iam.cli._common import add_quiet, add_scheduler_argument, check_seed, command_runtime, output_dir
from iam.errors import IAMError, ParameterError
from iam.evolution import EvolutionConfig, GenerationReport, Mutation, evolve_piece_values
from iam.evolution.run import GENOMES, genome_names
from search.chess.match import MatchError, load_openings

_DEFAULT_OPENINGS = Path(__file__).resolve().parents[3] / "benchmarks" / "match_openings_100.epd"
_OPTIONS = {
    "population": "--population", "demes": "--demes", "generations": "--generations", "nodes": "--nodes",
    "max_plies": "--max-plies", "migrate_every": "--migrate-every", "seed": "--seed", "openings": "--openings",
    "spread_floor": "--spread-floor", "pawn": "--pawn", "genome": "--genome",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evolve",
        help="evolve the chess search's piece values or square bonuses by self-play",
        description="Evolve the piece values (pawn, knight, bishop, rook, queen) of the compiled chess search, or "
        "the scales of its square bonuses, from random ones: a population split into demes plays pairs of games "
        "(each colour once) at a node budget per "
        "move, and Kendall and Whitwell's mutation rule makes each generation; every few generations the demes "
        "pair across their borders. Every finished generation is written to --out (JSON, CSV, a plot) and an "
        "interrupted run goes on with --resume.",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="folder of the run's files")
    parser.add_argument("--generations", type=int, default=10, help="generations to reach (default 10)")
    parser.add_argument("--population", type=int, default=16, help="individuals (default 16)")
    parser.add_argument("--demes", type=int, default=2, help="demes the population is split into (default 2)")
    parser.add_argument("--nodes", type=int, default=2000, help="nodes per move (default 2000)")
    parser.add_argument("--max-plies", type=int, default=200, help="a game this long is a draw (default 200)")
    parser.add_argument("--migrate-every", type=int, default=4,
                        help="the demes pair across their borders every N generations (0: never; default 4)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--spread-floor", type=float, default=Mutation().spread_floor, metavar="F",
                        help="the rule's spread s(y) is at least F times the value's population mean, so that a "
                        f"population that agrees still mutates (0: none; default {Mutation().spread_floor:g})")
    parser.add_argument("--genome", choices=GENOMES, default="pieces",
                        help="what evolves: the five piece values (pieces, the default), the twelve scales of the "
                        "square bonuses, a piece's table in the middlegame and the endgame times one number, drawn "
                        "from 0 to 2 (squares; the material the hand-set one), or both")
    parser.add_argument("--pawn", type=float, metavar="CP",
                        help="hold the pawn at CP centipawns, the unit of the square bonuses, and evolve the "
                        "other four values (default: the pawn evolves too)")
    parser.add_argument("--openings", metavar="FILE",
                        help="start positions, a PGN file or one FEN/EPD a line (default: the 100 openings of "
                        "benchmarks/match_openings_100.epd, else the initial position)")
    parser.add_argument("--resume", action="store_true", help="go on with the run in --out from its last generation")
    parser.add_argument("--asynchronous", action="store_true",
                        help="each deme plays its next generation as soon as its own games are in, instead of "
                        "waiting for every deme's (the demes wait for each other only at a migration; the demes "
                        "draw their own random numbers: another run than without it, as reproducible)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes (default 1)")
    add_scheduler_argument(parser)
    add_quiet(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_seed(args.seed)
    runtime = command_runtime(args)
    try:
        config = EvolutionConfig(
            population=args.population, demes=args.demes, generations=args.generations, nodes=args.nodes,
            max_plies=args.max_plies, migrate_every=args.migrate_every, seed=args.seed, openings=_openings(args),
            mutation=Mutation(spread_floor=args.spread_floor, pawn=args.pawn, genome=args.genome),
        )
    except ParameterError as exc:
        raise IAMError(exc.worded(_OPTIONS)) from None
    folder = output_dir(args.out)

    def report(generation: GenerationReport) -> None:
        if not args.quiet:
            print(_progress_line(generation, config.generations), file=sys.stderr, flush=True)

    table = evolve_piece_values(config, folder, runtime, resume=args.resume, on_generation=report,
                                asynchronous=args.asynchronous)
    last = table[table["generation"] == table["generation"].max()]
    names = list(genome_names(args.genome))
    means = last[names].mean()
    label = {"pieces": "piece values", "squares": "square scales"}.get(args.genome, "weights")
    print(f"generation {int(last['generation'].iloc[0])}: mean {label} "
          + ", ".join(f"{name} {_shown(name, means[name])}" for name in names))
    print(f"files written to {folder}", file=sys.stderr)
    return 0


def _openings(args: argparse.Namespace) -> tuple[str, ...]:
    path = args.openings or (_DEFAULT_OPENINGS if _DEFAULT_OPENINGS.is_file() else None)
    if path is None:
        return EvolutionConfig().openings
    try:
        return tuple(board.fen() for board in load_openings(path))
    except MatchError as exc:
        raise IAMError(str(exc)) from None


def _shown(name: str, value: float) -> str:
    return f"{value:.2f}" if "_squares_" in name else f"{value:.0f}"


def _short(name: str) -> str:
    """P for the pawn's value, P.mg for the pawn's middlegame square scale, ..."""
    piece, _, phase = name.partition("_squares_")
    letter = "N" if piece == "knight" else piece[0].upper()
    return f"{letter}.{phase}" if phase else letter


def _progress_line(report: GenerationReport, generations: int) -> str:
    means = report.population.mean(axis=0)
    names = next(n for n in (genome_names(g) for g in GENOMES) if len(n) == len(means))
    values = " ".join(f"{_short(name)} {_shown(name, value)}" for name, value in zip(names, means))
    if not report.pairs:
        state = "resumed at" if report.resumed else "start:"
        return f"evolve: {state} generation {report.generation}/{generations}: mean {values}"
    cases = [row["case"] for row in report.pairs]
    tally = ", ".join(f"{cases.count(c)} {c}" for c in ("won both", "won and drew", "level") if c in cases)
    return (f"evolve: generation {report.generation}/{generations} in {report.seconds:.1f} s "
            f"({tally}): mean {values}")
