"""Fetch the small Gaviota tables (KQK, KRK) that python-chess's source release ships,
for the tablebase test of the retrograde solver.

Run by .ci/run; run it by hand to enable the test locally:
    .venv/bin/python scripts/fetch_tablebases.py
The tables are not committed: they are third-party data. This downloads the source
release of the installed python-chess version with pip, takes only the two files,
checks them against pinned MD5 sums (those python-chess publishes beside them) and
writes them to <venv>/share/iam-tablebases/gaviota (or the folder given).
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tempfile
from importlib.metadata import version
from pathlib import Path

TABLES = {
    "kqk.gtb.cp4": "c80c5b3e32f601dfaa7f3f6b6a431ef7",
    "krk.gtb.cp4": "959fd626c3ef3183aa4ddeca4ecf63a6",
}
DEFAULT_DIR = Path(sys.prefix) / "share" / "iam-tablebases" / "gaviota"


def fetch(target: Path = DEFAULT_DIR) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    if all(_md5(target / name) == digest for name, digest in TABLES.items()):
        return target
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", "--dest", scratch, f"chess=={version('chess')}"],
            check=True,
        )
        (archive,) = Path(scratch).glob("chess-*.tar.gz")
        with tarfile.open(archive) as tar:
            for member in tar.getmembers():
                name = Path(member.name).name
                if name in TABLES and "/data/gaviota/" in member.name:
                    data = tar.extractfile(member).read()
                    if hashlib.md5(data).hexdigest() != TABLES[name]:
                        raise SystemExit(f"{name}: checksum mismatch, not installed")
                    (target / name).write_bytes(data)
    missing = [name for name in TABLES if _md5(target / name) != TABLES[name]]
    if missing:
        raise SystemExit(f"not found in the python-chess source release: {missing}")
    return target


def _md5(path: Path) -> str | None:
    return hashlib.md5(path.read_bytes()).hexdigest() if path.exists() else None


if __name__ == "__main__":
    print(f"gaviota tables in {fetch(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DIR)}")
