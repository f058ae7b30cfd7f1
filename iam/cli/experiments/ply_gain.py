"""``iam experiment ply-gain``: options of :mod:`experiments.ply_gain`."""

from __future__ import annotations

import argparse

from experiments.guided_depth import NEAR_PLIES, POLICY_POSITIONS
from experiments.ply_gain import CORES, DEFAULT_BUDGETS, HELP, NAME, PlyGainConfig, SearchBudgets, SearchSettings, run
from iam.cli.experiments._setup import add_setup_arguments, setup_fields
from iam.errors import DataError
from search.opponent.omsearch import Guidance

__all__ = ["NAME", "HELP", "add_arguments", "config", "run", "parse_budgets", "parse_times", "guidance_from"]

_BUDGETS = ",".join(map(str, DEFAULT_BUDGETS))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_setup_arguments(parser)
    parser.add_argument(
        "--budgets", default=_BUDGETS, help=f"node budgets (default {_BUDGETS}; 'none' for time budgets only)"
    )
    parser.add_argument(
        "--times", default="",
        help="time budgets in seconds, e.g. 0.5,2 (default none): plain and guided search at equal time",
    )
    parser.add_argument("--core", choices=CORES, default="fast",
                        help="fast: the fast chess core (default); generic: the generic search on the python-chess "
                        "adapter")
    parser.add_argument("--predictor", default="iam",
                        help="comma list of predictors: iam, ranker, quick (a ranker without the search, value and "
                        "shape families), policy, "
                        "oracle, oracle@P (accuracy P), or near+cheap such as ranker+policy (default iam)")
    parser.add_argument("--near", type=int, default=NEAR_PLIES,
                        help="fast core: his nodes within this many plies of the root read the costly predictor "
                        f"(default {NEAR_PLIES})")
    parser.add_argument("--policy-positions", type=int, default=POLICY_POSITIONS,
                        help="training positions the policy is distilled on from the ranker (default "
                        f"{POLICY_POSITIONS})")
    parser.add_argument(
        "--ranker-model",
        help="a saved move ranker (iam train) fitted on the same training games, instead of fitting one",
    )
    add_guidance_arguments(parser)


def add_guidance_arguments(parser: argparse.ArgumentParser) -> None:
    """The knobs of :class:`search.opponent.omsearch.Guidance`, with its defaults."""
    defaults = Guidance()
    guidance = parser.add_argument_group("guidance (search.opponent.omsearch.Guidance)")
    guidance.add_argument(
        "--extend-at", type=float, default=defaults.extend_at, help="belief at which a move is extended"
    )
    guidance.add_argument("--extension", type=int, default=defaults.extension, help="plies added to those moves")
    guidance.add_argument(
        "--reduce-below", type=float, default=defaults.reduce_below, help="belief below which a move is reduced"
    )
    guidance.add_argument("--reduction", type=int, default=defaults.reduction, help="plies taken from those moves")
    guidance.add_argument(
        "--prune-below", type=float, default=defaults.prune_below,
        help="belief below which a move is not searched at all",
    )
    guidance.add_argument(
        "--confidence", type=float, default=defaults.confidence,
        help="reduce only where the predictions hold this much belief",
    )
    guidance.add_argument(
        "--predictions-first", action="store_true", help="put predictions before the table's move too"
    )
    guidance.add_argument("--reduce-first", action="store_true", help="let the table's move be reduced too")
    guidance.add_argument(
        "--min-depth", type=float, default=defaults.min_depth, help="consult the model only with this many plies left"
    )


def guidance_from(args: argparse.Namespace) -> Guidance:
    """The :class:`~search.opponent.omsearch.Guidance` the options describe (DataError if invalid)."""
    try:
        return Guidance(
            extend_at=args.extend_at,
            extension=args.extension,
            reduce_below=args.reduce_below,
            reduction=args.reduction,
            confidence=args.confidence,
            prune_below=args.prune_below,
            keep_first=not args.predictions_first,
            reduce_first=args.reduce_first,
            min_depth=args.min_depth,
        )
    except ValueError as exc:
        raise DataError(str(exc)) from None


def parse_budgets(text: str) -> list[int]:
    """``"5000,20000"`` -> ``[5000, 20000]``, sorted without repeats (DataError below 10 nodes)."""
    try:
        budgets = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise DataError(f"--budgets takes node counts like 5000,20000, not {text!r}") from None
    if not budgets or any(b < 10 for b in budgets):
        raise DataError("--budgets needs node counts of at least 10")
    return sorted(set(budgets))


def parse_times(text: str) -> list[float]:
    """``"0.5,2"`` -> ``[0.5, 2.0]``, sorted without repeats (DataError outside (0, 600] seconds)."""
    try:
        times = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise DataError(f"--times takes seconds like 0.5,2, not {text!r}") from None
    if any(not 0 < t <= 600 for t in times):
        raise DataError("--times needs seconds above 0 and at most 600")
    return sorted(set(times))


def config(args: argparse.Namespace) -> PlyGainConfig:
    budgets = () if args.budgets.strip().lower() == "none" else tuple(parse_budgets(args.budgets))
    times = tuple(parse_times(args.times))
    if not budgets and not times:
        raise DataError("ply-gain needs node budgets (--budgets) or time budgets (--times)")
    guidance = guidance_from(args)
    predictors = tuple(part.strip() for part in args.predictor.split(",") if part.strip())
    if not predictors:
        raise DataError("--predictor needs at least one predictor")
    if args.near < 0:
        raise DataError(f"--near must be at least 0 plies, not {args.near}")
    if args.policy_positions < 10:
        raise DataError("--policy-positions must be at least 10")
    return PlyGainConfig(
        **setup_fields(args, policy_positions=args.policy_positions, ranker_model=args.ranker_model),
        positions=args.positions, budgets=SearchBudgets(nodes=budgets, times=times),
        search=SearchSettings(core=args.core, predictors=predictors, guidance=guidance, near=args.near),
    )
