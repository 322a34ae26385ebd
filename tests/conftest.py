"""Shared pytest set-up: GPU tests skip cleanly without CuPy or a CUDA device."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# No progress lines from commands the tests run (a slow CI machine would otherwise add
# them to the stderr that tests check); tests/cli/test_progress.py sets its own delays.
os.environ.setdefault("SIGNPOST_PROGRESS_DELAY", "3600")
# The route index is built in the command, as the tests expect, never deferred to a
# background process while scipy answers (app.jobs.index_later; tests there turn it on).
os.environ.setdefault("SIGNPOST_INDEX_BACKGROUND", "0")
# The window's warm-up compiles in its own thread, not in a child process
# (app.jobs.compile_ahead; tests/gui/test_compile_ahead.py turns it on).
os.environ.setdefault("SIGNPOST_COMPILE_AHEAD", "0")

REPO = Path(__file__).resolve().parents[1]
SHARED_MAPS = REPO.parent / "shared" / "maps"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def pytest_collection_modifyitems(config, items):
    from gpu_core.backend import cupy_status

    ok, why = cupy_status()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"no GPU: {why}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_maps() -> Path:
    """../shared/maps (large real maps); tests using it skip when it is absent."""
    if not SHARED_MAPS.is_dir():
        pytest.skip("../shared/maps is not present")
    return SHARED_MAPS


@pytest.fixture(autouse=True)
def _reset_cli_output_settings():
    """``main(["-q", ...])`` sets module-wide progress/log settings: undo them after each
    test so that the next one starts from the defaults, whatever the order."""
    yield
    from app import progress

    progress.configure()
    progress._config["delay"] = None
