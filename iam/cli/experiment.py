"""``iam experiment NAME``: run one of the registered experiments (experiments/)."""

from __future__ import annotations

import argparse
import sys

from iam.errors import IAMError


def register(subparsers: argparse._SubParsersAction) -> None:
    from experiments.runner import add_common_arguments, experiments

    parser = subparsers.add_parser(
        "experiment",
        help="run an experiment (node counts, ...) and write its tables and plots",
        description="Run one experiment; --json prints its results, --out DIR writes "
        "CSV, JSON, a markdown summary and PNG plots.",
    )
    names = parser.add_subparsers(dest="experiment", required=True, metavar="NAME")
    from iam.cli import stylometry

    for name, module in {**experiments(), stylometry.NAME: stylometry}.items():
        sub = names.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(sub)
        add_common_arguments(sub)
        sub.set_defaults(run=run, experiment_module=module)


def run(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from experiments.runner import write_result
    from iam.cli._common import check_seed, finite, output_dir, print_json, usable_jobs

    args.jobs = usable_jobs(args.jobs)
    check_seed(args.seed)
    if args.out:
        output_dir(args.out)  # a bad --out fails before the work, not after it
    result = args.experiment_module.run(args)
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
