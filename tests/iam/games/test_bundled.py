"""The bundled data: present, verified against its manifest, and shipped inside the wheel."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import iam.games.bundled as bundled
from iam.errors import DataError

ROOT = Path(__file__).resolve().parents[3]


def test_manifest_lists_the_six_masters_and_verifies():
    entries = bundled.manifest()
    assert [e.file for e in entries] == [
        "Botvinnik.pgn", "Capablanca.pgn", "Alekhine.pgn", "Lasker.pgn", "Smyslov.pgn", "Spassky.pgn"
    ]
    assert [e.games for e in entries] == [891, 597, 1661, 900, 2627, 2231]
    assert bundled.bundled_pgn("smyslov").name == "Smyslov.pgn"
    assert bundled.default_pgn().name == "Botvinnik.pgn"
    assert bundled.bundled_pgn("capablanca").name == "Capablanca.pgn"
    with pytest.raises(DataError, match="no bundled"):
        bundled.bundled_pgn("Kasparov")


def test_a_damaged_copy_is_refused(tmp_path, monkeypatch):
    copy = tmp_path / "bundled_data"
    shutil.copytree(bundled.bundled_dir(), copy)
    with (copy / "Botvinnik.pgn").open("ab") as handle:
        handle.write(b"\n")
    monkeypatch.setattr(bundled, "_PACKAGE_DIR", tmp_path)
    bundled.manifest.cache_clear()
    try:
        with pytest.raises(DataError, match="does not match its manifest"):
            bundled.default_pgn()
    finally:
        bundled.manifest.cache_clear()


@pytest.mark.slow
def test_the_wheel_carries_the_data_but_no_top_level_datasets_package(tmp_path):
    if shutil.which("pip") is None and not (Path(sys.executable).parent / "pip").exists():
        pytest.skip("pip is not available")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "iam/bundled_data/Botvinnik.pgn" in names and "iam/bundled_data/MANIFEST.json" in names
    assert not any(name.startswith("datasets/") for name in names)
    manifest = json.loads(zipfile.ZipFile(wheel).read("iam/bundled_data/MANIFEST.json"))
    assert manifest["default"] == "Botvinnik.pgn"
    # A normal (non-editable) install finds and verifies its own copy.
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    probe = "from iam.games.bundled import default_pgn; print(default_pgn())"
    found = subprocess.run(
        [sys.executable, "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
    )
    assert Path(found.stdout.strip()) == target / "iam" / "bundled_data" / "Botvinnik.pgn"


def test_a_manifest_with_a_wrong_games_count_is_refused(tmp_path, monkeypatch):
    copy = tmp_path / "bundled_data"
    shutil.copytree(bundled.bundled_dir(), copy)
    content = json.loads((copy / "MANIFEST.json").read_text())
    content["files"][1]["games"] = 600
    (copy / "MANIFEST.json").write_text(json.dumps(content))
    monkeypatch.setattr(bundled, "_PACKAGE_DIR", tmp_path)
    bundled.manifest.cache_clear()
    bundled.bundled_pgn.cache_clear()
    try:
        assert bundled.default_pgn().name == "Botvinnik.pgn"
        with pytest.raises(DataError, match="holds 597 games but its manifest says 600"):
            bundled.bundled_pgn("Capablanca")
    finally:
        bundled.manifest.cache_clear()
        bundled.bundled_pgn.cache_clear()
