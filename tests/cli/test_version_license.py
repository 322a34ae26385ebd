"""``signpost --version`` and ``python -m app --version``; the LICENSE file with the
OpenStreetMap attribution of the bundled sample map."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata

import pytest

from app import cli
from tests.conftest import REPO

PYPROJECT = (REPO / "pyproject.toml").read_text(encoding="utf-8")
PYPROJECT_VERSION = re.search(r'^version = "([^"]+)"', PYPROJECT, re.MULTILINE).group(1)


def test_signpost_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"signpost {cli.version()}"


def test_version_falls_back_to_pyproject(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert cli.version() == PYPROJECT_VERSION


def test_python_m_app_version():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "app", "--version"], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"signpost {cli.version()}"


def test_license_is_mit_with_the_osm_attribution():
    text = " ".join((REPO / "LICENSE").read_text(encoding="utf-8").split())
    assert text.startswith("MIT License")
    assert "Signpost developers" in text
    assert "© OpenStreetMap contributors" in text and "Open Database License (ODbL)" in text
    assert "maps/samples/ATTRIBUTION" in text
    assert (REPO / "maps" / "samples" / "ATTRIBUTION").is_file()
    # an SPDX string: the table form made setuptools >= 77 print screens of deprecation
    # warnings at every install (issue 42)
    assert re.search(r'^license = "MIT"', PYPROJECT, re.MULTILINE)
    assert re.search(r'^requires = \["setuptools>=(\d+)', PYPROJECT, re.MULTILINE).group(1) >= "77"
    assert re.search(r'^    "tqdm>=[\d.]+",', PYPROJECT, re.MULTILINE)  # a core dependency
