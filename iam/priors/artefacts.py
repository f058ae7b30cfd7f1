"""The fitted artefacts shipped inside the package, and the manifest that vouches for them.

The move ranker reads three files fitted offline on the bundled masters: the population
prior, the policy networks and the value network (with a CSV of the prior's fits beside
them). ``iam/priors/artefacts.json`` records, for each, its sha256 and size, its format
and version, the command that builds it, the toolkit version and the masters it saw; and,
for all of them, a digest of the feature code they were fitted on and a fingerprint of
what that code computes on a few fixed positions.

* At load (:func:`verified_file`) a shipped file must match its manifest entry: a
  damaged or swapped file is a :class:`~iam.errors.ModelFileError`, never a silently
  different model.
* The feature code's digest (:func:`feature_code_digest`) is taken over the syntax of
  the modules that compute the models' inputs, docstrings and comments left out, so a
  change of wording does not count and a change of code does. When it differs from the
  manifest's, the artefacts may no longer match what the code computes: the feature
  fingerprint (:func:`iam.evidence.fingerprint.feature_fingerprint`) says whether they do, and
  ``python scripts/build_artefacts.py --restamp`` records the new digest only if the
  fingerprint is unchanged; otherwise the artefacts must be rebuilt
  (``python scripts/build_artefacts.py``).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

import numpy as np

from iam.errors import ModelFileError

__all__ = [
    "ARTEFACT_DIR",
    "MANIFEST_FILE",
    "FEATURE_MODULES",
    "ArtefactEntry",
    "Manifest",
    "read_manifest",
    "write_manifest",
    "verified_file",
    "file_sha256",
    "feature_code_digest",
    "fingerprints_agree",
]

ARTEFACT_DIR = Path(__file__).resolve().parent
"""Where the shipped artefacts live (inside the installed package)."""

MANIFEST_FILE = ARTEFACT_DIR / "artefacts.json"
"""The manifest of the shipped artefacts."""

MANIFEST_FORMAT = "iam-artefact-manifest"
MANIFEST_VERSION = 1

FEATURE_MODULES: tuple[str, ...] = (
    "iam.chunks.board",
    "iam.chunks.features",
    "iam.evidence.movefeatures",
    "iam.evidence.shapefeatures",
    "iam.evidence.scorefeatures",
    "iam.priors.patterns",
    "iam.evidence.habits",
    "iam.priors.positions",
    "iam.priors.movenet",
    "iam.priors.policynet",
    "iam.priors.valuenet",
    "search.chess.board",
    "search.chess.engine",
    "search.chess.pst",
    "search.chess.scoring",
    "search.result",
)
"""The modules whose code computes the inputs the artefacts were fitted on."""

@dataclass(frozen=True)
class ArtefactEntry:
    """One shipped file: what it is, how it was built, and how to recognise it."""

    file: str
    format: str
    version: int
    sha256: str
    bytes: int
    build: str
    masters: tuple[str, ...]


@dataclass(frozen=True)
class Manifest:
    """Every shipped artefact, the toolkit version and feature code they were built with."""

    artefacts: Mapping[str, ArtefactEntry]
    toolkit: str
    feature_modules: tuple[str, ...]
    feature_code: str
    fingerprint: Mapping[str, Sequence[float]]
    build_command: str

    def to_dict(self) -> dict:
        return {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "toolkit": self.toolkit,
            "build_command": self.build_command,
            "feature_modules": list(self.feature_modules),
            "feature_code": self.feature_code,
            "fingerprint": {name: list(values) for name, values in self.fingerprint.items()},
            "artefacts": [{**asdict(entry), "masters": list(entry.masters)} for entry in self.artefacts.values()],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Manifest:
        if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
            raise ValueError("not an artefact manifest")
        version = data.get("version")
        if isinstance(version, bool) or version != MANIFEST_VERSION:
            raise ValueError(f"manifest version {version!r}; this toolkit reads version {MANIFEST_VERSION}")
        entries = {}
        for item in data["artefacts"]:
            entry = ArtefactEntry(**{**item, "masters": tuple(item["masters"])})
            entries[entry.file] = entry
        return cls(
            artefacts=entries,
            toolkit=str(data["toolkit"]),
            feature_modules=tuple(data["feature_modules"]),
            feature_code=str(data["feature_code"]),
            fingerprint={name: [float(value) for value in values] for name, values in data["fingerprint"].items()},
            build_command=str(data["build_command"]),
        )


@cache
def read_manifest(path: Path = MANIFEST_FILE) -> Manifest:
    """The manifest (read once per process); ModelFileError if it is missing or malformed."""
    try:
        return Manifest.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise ModelFileError(f"the artefact manifest {path} is missing: reinstall the toolkit") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelFileError(f"the artefact manifest {path} is malformed: {exc}") from None


def write_manifest(manifest: Manifest, path: Path = MANIFEST_FILE) -> None:
    """Write the manifest as indented JSON, a fingerprint column a line (a reader can diff two builds)."""
    text = json.dumps(manifest.to_dict(), indent=2)
    text = re.sub(r"\[\s+([^\[\]{}\"]*?)\s+\]", lambda found: "[" + re.sub(r"\s+", " ", found.group(1)) + "]", text)
    Path(path).write_text(text + "\n", encoding="utf-8")
    read_manifest.cache_clear()


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@cache
def verified_file(name: str, directory: Path = ARTEFACT_DIR) -> Path:
    """The path of artefact ``name`` in ``directory`` once it matches the manifest there (checked once per process).

    ModelFileError, one line, when the manifest does not list it or the file's size or
    sha256 differ from the manifest's: the file was damaged, replaced, or rebuilt
    without the manifest.
    """
    entry = read_manifest(directory / MANIFEST_FILE.name).artefacts.get(name)
    if entry is None:
        raise ModelFileError(f"the shipped artefact {name} is not in the manifest {directory / MANIFEST_FILE.name}")
    path = directory / name
    size = path.stat().st_size
    if size != entry.bytes or file_sha256(path) != entry.sha256:
        raise ModelFileError(
            f"the shipped artefact {path} does not match its manifest (sha256 {entry.sha256[:12]}..., "
            f"{entry.bytes} bytes): reinstall the toolkit or rebuild it with: {entry.build}"
        )
    return path


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """The tree with every module, class and function docstring removed."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]
    return tree


def feature_code_digest(modules: Sequence[str] = FEATURE_MODULES) -> str:
    """A digest of the modules' code, docstrings and comments left out (16 hex digits)."""
    digest = hashlib.sha256()
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise ValueError(f"feature module {name} is not installed")
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        digest.update(name.encode() + b"\0" + ast.unparse(_without_docstrings(tree)).encode() + b"\0")
    return digest.hexdigest()[:16]


def fingerprints_agree(a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]]) -> list[str]:
    """The columns whose fingerprints differ beyond rounding (empty when they agree)."""
    differ = sorted(set(a) ^ set(b))
    for name in sorted(set(a) & set(b)):
        if not np.allclose(a[name], b[name], rtol=1e-7, atol=1e-9):
            differ.append(name)
    return differ
