"""``iam experiment NAME``: run one of the registered experiments (experiments/).

Each experiment is a function of a frozen config (:mod:`experiments`); its module
under :mod:`iam.cli.experiments` adds its options and turns them into that config.
To add an experiment, write both modules and list the second in :data:`EXPERIMENTS`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

import matplotlib

from experiments.common import write_result
from iam.cli._common import check_seed, finite, output_dir, print_json, usable_jobs
from iam.cli.experiments._options import add_common_arguments
from iam.errors import IAMError
from iam.progress import phase

__all__ = ["EXPERIMENTS", "experiments", "register", "run"]

EXPERIMENTS = (
    "node_counts", "belief_bands", "learning_curve", "ply_gain", "guidance_tuning", "ablation", "stylometry",
    "exploit", "prepare", "ponder", "judge_depth", "ranker_depth", "evolution.evolve",
)
"""The modules of :mod:`iam.cli.experiments`, in the order ``iam experiment --help`` lists them."""


def experiments() -> dict[str, ModuleType]:
    """Every registered experiment's command-line module by the experiment's ``NAME``."""
    modules = [importlib.import_module(f"iam.cli.experiments.{name}") for name in EXPERIMENTS]
    return {module.NAME: module for module in modules}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "experiment",
        help="run an experiment (node counts, ...) and write its tables and plots",
        description="Run one experiment; --json prints its results, --out DIR writes "
        "CSV, JSON, a markdown summary and PNG plots.",
    )
    names = parser.add_subparsers(dest="experiment", required=True, metavar="NAME")
    for name, module in experiments().items():
        sub = names.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        add_common_arguments(sub)
        sub.set_defaults(run=run, experiment_module=module)


def run(args: argparse.Namespace) -> int:
    matplotlib.use("Agg")
    args.jobs = usable_jobs(args.jobs)
    check_seed(args.seed)
    if args.out:
        output_dir(args.out)  # a bad --out fails before the work, not after it
    module = args.experiment_module
    config = module.config(args)
    phase(f"running the experiment {args.experiment}", quiet=args.quiet)
    result = module.run(config)
    if args.out:
        try:
            written = write_result(result, args.out)
        except OSError as exc:
            raise IAMError(f"cannot write to {args.out}: {exc.strerror}") from None
        if not args.quiet:
            print(f"wrote {len(written)} files to {args.out}", file=sys.stderr)
    if args.json:
        print_json(finite(result.payload))
    else:
        print(result.markdown)
    return 0
