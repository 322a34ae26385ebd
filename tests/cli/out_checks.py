"""What the --out tests share: a private cache folder, a file's digest (a refused write
leaves it byte for byte) and the one-line refusal."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.cli import main


@pytest.fixture()
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def digest(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def one_line(capsys, *argv) -> str:
    """The command's one error line (exit status 2, no traceback)."""
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, (rc, err)
    return err.strip()
