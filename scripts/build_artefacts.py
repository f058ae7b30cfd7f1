"""Rebuild every artefact shipped with the move ranker, then its manifest.

    python scripts/build_artefacts.py [--engine /usr/games/stockfish] [--jobs 2]
    python scripts/build_artefacts.py --restamp     # feature code changed: check, then record it
    python scripts/build_artefacts.py --manifest    # only write the manifest of the files as they are

The steps run in the order their inputs need (the prior reads the networks' outputs):

1. the value network (``build_value_net.py``: stockfish at depth 1 on 30,000 positions a master);
2. the policy networks (``build_policy_nets.py``: 40,000 positions a master and side);
3. the population prior, its linear fits at depth 2 (``iam prior build --bundled``: 800
   positions a master, no trees);
4. the population prior at depth 3 with its residual trees (1,600 positions a master),
   replacing the depth-3 fits of step 3.

Every step reads the bundled masters' training games only and is deterministic for its
arguments. The engine's analyses are cached in SQLite files in the working folder, so an
interrupted build resumes. ``--restamp`` computes the feature fingerprint
(:func:`iam.priors.artefacts.feature_fingerprint`) and, only if it equals the
manifest's, records the present feature code's digest: a change of code that leaves every
input unchanged needs no rebuild.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

from iam._install import __version__
from iam.evidence.fingerprint import feature_fingerprint
from iam.priors.artefacts import (
    ARTEFACT_DIR,
    FEATURE_MODULES,
    ArtefactEntry,
    Manifest,
    feature_code_digest,
    file_sha256,
    fingerprints_agree,
    read_manifest,
    write_manifest,
)

SCRIPTS = Path(__file__).resolve().parent
PRIOR = ARTEFACT_DIR / "population_prior.json.gz"


def _steps(engine: str, jobs: int) -> dict[str, list[list[str]]]:
    """Per artefact, the script invocations that build it (arguments after the script's path)."""
    return {
        "value_net.json.gz": [["build_value_net.py", "--positions", "30000", "--engine", engine, "--jobs", str(jobs)]],
        "policy_nets.json.gz": [["build_policy_nets.py", "--positions", "40000", "--jobs", str(jobs)]],
        "population_prior.json.gz": [
            ["-m", "iam", "prior", "build", "--bundled", "--positions", "800", "--search-depth", "2",
             "--engine", engine, "--no-trees", "--jobs", str(jobs), "--out", str(PRIOR)],
            ["-m", "iam", "prior", "build", "--bundled", "--positions", "1600", "--search-depth", "3",
             "--engine", engine, "--update", str(PRIOR), "--jobs", str(jobs), "--out", str(PRIOR)],
        ],
    }


def _command(step: list[str]) -> str:
    words = ["iam", *step[2:]] if step[0] == "-m" else ["python", f"scripts/{step[0]}", *step[1:]]
    return " ".join(words).replace(str(PRIOR), "iam/priors/population_prior.json.gz")


def _argv(step: list[str]) -> list[str]:
    return [sys.executable, *step] if step[0] == "-m" else [sys.executable, str(SCRIPTS / step[0]), *step[1:]]


def _entry(name: str, build: str) -> ArtefactEntry:
    """The manifest entry of a built file, read from the file itself."""
    path = ARTEFACT_DIR / name
    if name.endswith(".csv"):
        return ArtefactEntry(name, "csv", 1, file_sha256(path), path.stat().st_size, build, ())
    data = json.load(gzip.open(path))
    info = data.get("settings") or data.get("info") or {}
    masters = tuple(info.get("masters", {})) or tuple(info.get("dropped_test_games_of_others", {}))
    return ArtefactEntry(name, data["format"], data["version"], file_sha256(path), path.stat().st_size, build, masters)


def manifest_of_files(engine: str, jobs: int) -> Manifest:
    """The manifest of the shipped files as they are, with the present feature code and fingerprint."""
    steps = _steps(engine, jobs)
    entries = {
        name: _entry(name, " && ".join(_command(step) for step in invocations)) for name, invocations in steps.items()
    }
    entries["population_prior_fits.csv"] = _entry(
        "population_prior_fits.csv", entries["population_prior.json.gz"].build
    )
    return Manifest(
        artefacts=entries,
        toolkit=__version__,
        feature_modules=FEATURE_MODULES,
        feature_code=feature_code_digest(),
        fingerprint=feature_fingerprint(),
        build_command="python scripts/build_artefacts.py",
    )


def restamp() -> int:
    """Record the present feature code's digest if the fingerprint is unchanged; 1 if it changed."""
    manifest = read_manifest()
    differ = fingerprints_agree(manifest.fingerprint, feature_fingerprint())
    if differ:
        print(f"the features differ from the ones the artefacts were fitted on ({', '.join(differ[:8])}"
              f"{' ...' if len(differ) > 8 else ''}): rebuild them with python scripts/build_artefacts.py",
              file=sys.stderr)
        return 1
    digest = feature_code_digest()
    write_manifest(Manifest(**{**manifest.__dict__, "feature_code": digest}))
    print(f"the features are unchanged; feature code {manifest.feature_code} -> {digest} recorded")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="/usr/games/stockfish", help="UCI engine of the value net and the prior")
    parser.add_argument("--jobs", type=int, default=2)
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--restamp", action="store_true", help="check the features are unchanged, record the code's digest"
    )
    action.add_argument("--manifest", action="store_true", help="write the manifest of the files as they are")
    args = parser.parse_args()
    if args.restamp:
        return restamp()
    if not args.manifest:
        started = time.perf_counter()
        for invocations in _steps(args.engine, args.jobs).values():
            for step in invocations:
                print(f"$ {_command(step)}", flush=True)
                subprocess.run(_argv(step), check=True)
        print(f"built every artefact in {time.perf_counter() - started:.0f} s")
    write_manifest(manifest_of_files(args.engine, args.jobs))
    print(f"wrote {ARTEFACT_DIR / 'artefacts.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
