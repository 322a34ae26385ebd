"""The "Network analysis" tool: MST and PageRank through the window's worker, drawn on the
map, summarised like the jobs' results, cancelled, refused, exported."""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest

from app.jobs import mst, pagerank
from tests.gui.fixture_map import fixture_network


def run_tool(qtbot, window, start, timeout=30000):
    with qtbot.waitSignal(window.searchFinished, timeout=timeout):
        assert start() > 0


@pytest.fixture
def analysis(window):
    tool = window.tools["analysis"]
    tool.panel.cb_backend.setCurrentText("cpu")
    return tool


def test_mst_drawn_and_summary_equals_job(qtbot, window, analysis, fixture_net):
    run_tool(qtbot, window, analysis.run_mst)
    ref = mst.run(fixture_net, mst.MSTOptions(backend="cpu"))
    f = analysis.mst_result.forest
    assert f.num_edges == ref.edges and f.total_weight == ref.forest.total_weight
    assert f.components == ref.forest.components
    np.testing.assert_array_equal(f.tails, ref.forest.tails)
    item = analysis.layers.forest_item
    assert item is not None and item.path().elementCount() == 2 * ref.edges
    text = analysis.panel.lbl_mst.text()
    from app.gui.map_canvas import format_cost

    assert f"{ref.edges:,} edges" in text
    assert f"total weight {format_cost(float(ref.forest.total_weight), fixture_net.unit)}" in text
    assert f"{int(ref.forest.components):,} components" in text
    # the superstep chart holds the run's telemetry
    assert window.chart.num_phases("MST") == len(ref.forest.telemetry) > 0
    qtbot.waitUntil(lambda: "supersteps" in window.chart.totals.text(), timeout=3000)
    analysis.panel.btn_clear.click()
    assert analysis.layers.forest_item is None


def test_pagerank_drawn_and_summary_equals_job(qtbot, window, analysis, fixture_net):
    analysis.panel.sp_damping.setValue(0.8)
    analysis.panel.ed_tol.setText("1e-8")
    run_tool(qtbot, window, analysis.run_pagerank)
    ref = pagerank.run(fixture_net, pagerank.PageRankOptions(damping=0.8, tol=1e-8, backend="cpu"))
    got = analysis.pagerank_result
    np.testing.assert_allclose(got.ranks.rank, ref.ranks.rank, rtol=0, atol=1e-15)
    assert got.ranks.iterations == ref.ranks.iterations
    text = analysis.panel.lbl_pr.text()
    assert f"after {ref.ranks.iterations} iterations" in text and "converged" in text
    assert str(ref.top(1)[0][0]) in text
    drawn = sum(len(it.data) for it in analysis.layers.rank_items)
    assert drawn == fixture_net.num_nodes
    assert analysis.layers.legend.isVisible()
    assert window.chart.num_phases("PageRank") == len(ref.ranks.telemetry)


def test_supersteps_stream_live(qtbot, window, analysis):
    seen = []
    window.compute.phases.connect(lambda _j, tag, rows: seen.append((tag, rows.dtype.names)))
    run_tool(qtbot, window, analysis.run_mst)
    assert seen and seen[0][0] == "MST" and "superstep" in seen[0][1]


def test_bad_damping_and_tolerance_refused(qtbot, window, analysis):
    for damping, tol in ((1.0, "1e-6"), (0.0, "1e-6"), (0.85, "-1"), (0.85, "abc")):
        analysis.panel.sp_damping.setValue(damping)
        analysis.panel.ed_tol.setText(tol)
        window.last_error = None
        assert analysis.run_pagerank() == 0
        assert window.last_error and "Traceback" not in window.last_error
        assert analysis.panel.lbl.text().startswith("Not run")
    assert analysis.pagerank_result is None


def test_cancel(qtbot, window, analysis, monkeypatch):
    import threading

    started = threading.Event()

    def slow(net, opts, *, progress=None, cancel=None, on_superstep=None):
        from gpu_core.errors import CancelledError

        started.set()
        while not cancel():
            threading.Event().wait(0.01)
        raise CancelledError("cancelled")

    monkeypatch.setattr(mst, "run", slow)
    with qtbot.waitSignal(window.searchCancelled, timeout=10000):
        analysis.run_mst()
        assert started.wait(5)
        analysis.panel.btn_cancel.click()
    assert "cancelled" in analysis.panel.lbl.text()
    assert analysis.mst_result is None and analysis.layers.forest_item is None


def test_exports_written_and_parseable(qtbot, window, analysis, fixture_net, tmp_path):
    with pytest.raises(Exception, match="run MST first"):
        window.export("mst", str(tmp_path / "none.csv"))
    run_tool(qtbot, window, analysis.run_mst)
    run_tool(qtbot, window, analysis.run_pagerank)
    res = analysis.mst_result
    window.export("mst", str(tmp_path / "f.csv"))
    window.export("mst", str(tmp_path / "f.geojson"))
    window.export("pagerank", str(tmp_path / "r.csv"))
    window.export("supersteps", str(tmp_path / "s.csv"))
    steps = list(csv.DictReader(open(tmp_path / "s.csv")))
    assert len(steps) == len(analysis.pagerank_result.ranks.telemetry)
    assert set(steps[0]) == {"superstep", "active", "messages", "arcs", "time_us"}
    rows = list(csv.DictReader(open(tmp_path / "f.csv")))
    assert len(rows) == res.edges
    assert sum(int(r["weight"]) for r in rows) == int(res.forest.total_weight)
    doc = json.load(open(tmp_path / "f.geojson"))
    assert len(doc["features"]) == res.edges
    assert doc["features"][0]["geometry"]["type"] == "LineString"
    ranks = list(csv.DictReader(open(tmp_path / "r.csv")))
    assert len(ranks) == fixture_net.num_nodes
    assert abs(sum(float(r["rank"]) for r in ranks) - 1.0) < 1e-9


@pytest.mark.parametrize("what", ["mst", "pagerank", "supersteps"])
def test_a_failed_export_leaves_the_old_file_and_no_temporary(qtbot, window, analysis,
                                                              tmp_path, monkeypatch, what):
    """The analysis exports are written whole or not at all (issue 38: they were written
    in place, so a failure left half a file where the old one was)."""
    run_tool(qtbot, window, analysis.run_mst)
    run_tool(qtbot, window, analysis.run_pagerank)
    out = tmp_path / f"{what}.csv"
    out.write_text("the old file\n")

    def half(fh, *args):
        fh.write("node_id,rank\n1,0.5\n")
        raise OSError(28, "No space left on device")

    if what == "supersteps":
        import app.gui.tools.analysis_tool as at

        def fails(telemetry):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(at, "telemetry_csv", fails)
    else:
        monkeypatch.setattr(mst if what == "mst" else pagerank, "write_csv", half)
    with pytest.raises(OSError, match="No space left"):
        window.export(what, str(out))
    assert out.read_text() == "the old file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_map_without_coordinates_runs(qtbot, make_window, tmp_path):
    from maps.formats.dimacs import load_dimacs

    gr = tmp_path / "tiny.gr"
    shutil.copy("tests/fixtures/dimacs/tiny.gr", gr)  # no .co beside it: no coordinates
    net = load_dimacs(str(gr))
    assert not net.has_coordinates
    window = make_window(net)
    tool = window.tools["analysis"]
    tool.panel.cb_backend.setCurrentText("cpu")
    run_tool(qtbot, window, tool.run_mst)
    run_tool(qtbot, window, tool.run_pagerank)
    ref = mst.run(net, mst.MSTOptions(backend="cpu"))
    assert f"{ref.edges:,} edges" in tool.panel.lbl_mst.text()
    assert "converged" in tool.panel.lbl_pr.text()
    assert "no coordinates" in tool.panel.lbl.text()
    assert not tool.layers.rank_items and tool.layers.forest_item is None
    with pytest.raises(Exception, match="no coordinates"):
        window.export("mst", str(tmp_path / "f.geojson"))
    window.export("mst", str(tmp_path / "f.csv"))


def test_new_map_clears_results(qtbot, window, analysis):
    run_tool(qtbot, window, analysis.run_mst)
    window.set_network(fixture_network(seed=3))
    assert analysis.mst_result is None and analysis.layers.forest_item is None
    assert not analysis.panel.btn_export_mst.isEnabled()
