"""The shipped artefacts match their manifest, and the manifest matches the feature code."""

from __future__ import annotations

import hashlib
import importlib
import json
import shutil
import textwrap

import pytest

from iam.errors import ModelFileError
from iam.evidence.fingerprint import feature_fingerprint
from iam.priors import artefacts
from iam.priors.artefacts import (
    ARTEFACT_DIR,
    MANIFEST_FILE,
    feature_code_digest,
    fingerprints_agree,
    read_manifest,
    verified_file,
)
from iam.priors.population import bundled_prior

SHIPPED = ("population_prior.json.gz", "policy_nets.json.gz", "value_net.json.gz", "population_prior_fits.csv")


def test_every_shipped_file_is_in_the_manifest_with_its_digest():
    manifest = read_manifest()
    assert set(manifest.artefacts) == set(SHIPPED)
    for name in SHIPPED:
        data = (ARTEFACT_DIR / name).read_bytes()
        entry = manifest.artefacts[name]
        assert (entry.sha256, entry.bytes) == (hashlib.sha256(data).hexdigest(), len(data))
        assert entry.build.startswith(("python scripts/build_", "iam prior build --bundled "))
        assert verified_file(name) == ARTEFACT_DIR / name


def test_the_prior_and_networks_record_the_six_masters():
    manifest = read_manifest()
    for name in ("population_prior.json.gz", "policy_nets.json.gz", "value_net.json.gz"):
        assert set(manifest.artefacts[name].masters) == {
            "Botvinnik",
            "Capablanca",
            "Alekhine",
            "Lasker",
            "Smyslov",
            "Spassky",
        }


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_a_damaged_artefact_is_refused_with_its_build_command(tmp_path, damage):
    name = "population_prior_fits.csv"
    shutil.copy(MANIFEST_FILE, tmp_path / MANIFEST_FILE.name)
    data = bytearray((ARTEFACT_DIR / name).read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x01  # same size, different digest
    else:
        data = data[:-10]
    (tmp_path / name).write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="does not match its manifest.*iam prior build --bundled"):
        verified_file(name, tmp_path)
    (tmp_path / name).write_bytes((ARTEFACT_DIR / name).read_bytes())
    assert verified_file(name, tmp_path) == tmp_path / name


def test_an_artefact_missing_from_the_manifest_or_a_foreign_manifest_is_refused(tmp_path):
    manifest = json.loads(MANIFEST_FILE.read_text())
    manifest["artefacts"] = [entry for entry in manifest["artefacts"] if entry["file"] != "value_net.json.gz"]
    (tmp_path / MANIFEST_FILE.name).write_text(json.dumps(manifest))
    shutil.copy(ARTEFACT_DIR / "value_net.json.gz", tmp_path)
    with pytest.raises(ModelFileError, match="not in the manifest"):
        verified_file("value_net.json.gz", tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    (other / MANIFEST_FILE.name).write_text(json.dumps({**manifest, "version": True}))
    with pytest.raises(ModelFileError, match="malformed"):
        verified_file("value_net.json.gz", other)


def test_the_bundled_prior_is_read_once_per_process():
    assert bundled_prior() is bundled_prior()


def test_the_code_digest_ignores_docstrings_and_comments_not_code(tmp_path, monkeypatch):
    source = '''
        """Module text."""
        def f(x):
            """What f does."""
            return x + 1  # a remark
    '''
    variants = {
        "plain": source,
        "reworded": source.replace("What f does.", "Adds one.").replace("# a remark", "# another"),
        "changed": source.replace("x + 1", "x + 2"),
    }
    digests = {}
    for name, text in variants.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "digest_probe.py").write_text(textwrap.dedent(text))
        monkeypatch.syspath_prepend(str(tmp_path / name))  # this variant is found first
        importlib.invalidate_caches()
        digests[name] = feature_code_digest(["digest_probe"])
    assert digests["plain"] == digests["reworded"] != digests["changed"]


def test_the_manifest_names_the_present_feature_code():
    # When this fails, feature code changed: `python scripts/build_artefacts.py --restamp` records it
    # if every input is unchanged (the fingerprint); otherwise the artefacts must be rebuilt.
    assert read_manifest().feature_code == feature_code_digest()


def test_the_features_are_the_ones_the_artefacts_were_fitted_on():
    found = feature_fingerprint()
    recorded = read_manifest().fingerprint
    assert len(found) > 40
    assert fingerprints_agree(recorded, found) == []
    shifted = {**found, "check": [found["check"][0] + 1.0, found["check"][1]]}
    assert fingerprints_agree(recorded, shifted) == ["check"]


def test_the_feature_modules_exist():
    for name in artefacts.FEATURE_MODULES:
        assert feature_code_digest([name])
