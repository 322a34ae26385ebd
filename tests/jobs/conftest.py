"""Fixtures of the job tests."""

from __future__ import annotations

import pytest

from app.jobs import index_later


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """Empty map cache and manifest folder, deferral on (tests/conftest.py turns it off). numba's
    own cache stays where it is (an empty one would compile the index in every run)."""
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "maps"))
    monkeypatch.setenv("SIGNPOST_WARM_DIR", str(tmp_path / "numba" / "signpost-warm"))
    monkeypatch.setenv(index_later.ENV, "1")
    return tmp_path
