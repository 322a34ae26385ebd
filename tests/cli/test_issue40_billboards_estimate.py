"""Issue 40 item 13: billboards with a large K say what the run will cost before it runs
(``-v``: the sampled method's searches, greedy rounds, time and memory, projected from a
pilot; the exact method's rounds x searches) and refuse in one line a run whose memory
would not fit; K larger than the map stays a clear error. The projection never changes
the answer (the pilot's paths are kept, not drawn twice)."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture()
def grid(tmp_path):
    path = tmp_path / "grid.gr"
    assert main(["generate", "grid", "-n", "400", "--out", str(path), "-q"]) == 0
    return str(path)


def bb(capsys, m, *extra) -> tuple[int, str, str]:
    # the pilot estimate is the fixed plan's (progressive sampling stops on its own bound)
    rc = main(["billboards", m, "--backend", "cpu", "--sampling", "fixed", *extra])
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    return rc, cap.out, cap.err


def test_sampled_run_projects_time_and_memory_with_v(grid, capsys):
    rc, _, err = bb(capsys, grid, "-k", "20", "--method", "sampled", "--epsilon", "0.3", "-v",
                    "-q")
    lines = [ln for ln in err.splitlines() if "sampled searches" in ln]
    assert rc == 0 and len(lines) == 1, err  # the warm-up's own run is not projected
    assert "20 greedy rounds" in lines[0] and "memory about" in lines[0], lines


def test_sampled_run_that_cannot_fit_is_one_line(grid, capsys, monkeypatch):
    import osutil.memory

    # 1 MiB: the warm-up's 4-node run fits, K=50's ~6,700 paths of ~13 vertices do not
    monkeypatch.setattr(osutil.memory, "available_memory", lambda: 1 << 20)
    rc, out, err = bb(capsys, grid, "-k", "50", "--method", "sampled", "--epsilon", "0.3")
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1 and out == "", err
    assert lines[0].startswith("signpost billboards: error: billboards with K=50 (")
    assert "would need about" in lines[0] and "smaller K" in lines[0], lines


def test_projection_leaves_the_answer_alone(grid, capsys):
    """The pilot's samples are the run's first: the same sites with one or all drawn in
    the pilot."""
    import gpu_core.betweenness.estimate as est

    rc, out, _ = bb(capsys, grid, "-k", "4", "--method", "sampled", "--epsilon", "0.3",
                    "--json", "-q")
    first = json.loads(out)
    old = est.PILOT_SAMPLES
    try:
        est.PILOT_SAMPLES = 10**9  # the whole plan in the pilot
        rc2, out2, _ = bb(capsys, grid, "-k", "4", "--method", "sampled", "--epsilon", "0.3",
                          "--json", "-q")
    finally:
        est.PILOT_SAMPLES = old
    second = json.loads(out2)
    assert rc == rc2 == 0
    for key in ("sites", "gains", "samples", "coverage", "error_bound"):
        assert first[key] == second[key], key


def test_exact_run_projects_its_time_with_v(grid, capsys):
    rc, _, err = bb(capsys, grid, "-k", "3", "--method", "exact", "-v", "-q")
    assert rc == 0 and "exact method, 3 rounds x 400 searches of about" in err, err


def test_k_larger_than_the_map_stays_a_clear_error(capsys):
    rc, _, err = bb(capsys, TINY, "-k", "5000")
    assert rc == 2 and "-k 5000 is larger than the 5 vertices" in err, err
