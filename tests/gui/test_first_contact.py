"""A fresh install's window compiles nothing (issue 41): from opening the sample map through
the first click to the first closed road, no numba compilation runs in the window's
process (the after-load child compiles into numba's cache; meanwhile the window takes the
paths that need none), and the answers are those of the kernels. A second session then
loads what the child compiled: still no compilation, and the closure is repaired."""

from __future__ import annotations

import hashlib
from typing import cast

import numpy as np
import pytest

from app.bench.gui_first import run_cold
from app.jobs.edits import Edit, Scenario
from maps.load import load_map
from maps.samples import SAMPLE_MAP


def _digest(res) -> str:
    h = hashlib.sha1(np.ascontiguousarray(res.dist, np.int64).tobytes())
    h.update(np.ascontiguousarray(res.pred, np.int32).tobytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    """The rows of a first session on empty caches and of a second one on the same."""
    numba = str(tmp_path_factory.mktemp("numba"))
    cache = str(tmp_path_factory.mktemp("maps"))
    first = run_cold(str(SAMPLE_MAP), folders=(numba, cache))
    second = run_cold(str(SAMPLE_MAP), folders=(numba, cache))
    return first, second


def test_the_first_session_compiles_nothing_in_the_window(sessions):
    first, _ = sessions
    assert first["compiled"] == 0, first["compilations"]
    assert first["closure_search"] == "fresh"  # the repair's kernels were not compiled yet
    for phase in ("open", "click", "index", "closure", "rest"):
        assert first[f"{phase}_compiled"] == 0, (phase, first["compilations"])


def test_each_phase_reports_the_window_threads_own_cpu(sessions):
    """``<phase>_cpu_ms``: the GUI thread's CPU between two heartbeats, never more than the
    longest gap (``<phase>_stall_ms`` + the 10 ms period; a millisecond for the clocks)."""
    first, _ = sessions
    for phase in ("show", "open", "click", "index", "closure", "rest"):
        assert 0 <= first[f"{phase}_cpu_ms"] <= first[f"{phase}_stall_ms"] + 10 + 1, phase
    assert first["stall_ms"] == max(first[f"{p}_stall_ms"]
                                    for p in ("open", "click", "index", "closure", "rest"))


def test_the_second_session_loads_the_childs_kernels(sessions):
    _, second = sessions
    assert second["compiled"] == 0, second["compilations"]
    assert second["closure_search"] == "repair"  # compiled by the first session's child


def test_the_answers_are_the_kernels(sessions):
    from gpu_core.graph import GraphLike
    from gpu_core.sssp import sssp

    net = load_map(str(SAMPLE_MAP))
    for row in sessions:
        src = row["source"]
        assert src >= 0 and row["closed_nodes"]
        assert row["click_hash"] == _digest(sssp(net, src, backend="cpu"))
        sc = Scenario(net, backend="cpu")
        sc.apply(Edit("close", nodes=tuple(row["closed_nodes"])))
        edited = sssp(cast(GraphLike, sc.graph), src, backend="cpu")
        assert row["closure_hash"] == _digest(edited)
