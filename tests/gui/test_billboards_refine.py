"""Billboards refine while the user watches (issue 43): progressive sampling's rounds put
their best sites on the map and in the panel before the end; cancel keeps the best."""

from __future__ import annotations


def test_sites_shown_while_sampling_and_cancel_keeps_best(qtbot, make_window):
    from app.gui.tools.billboards_tool import PREVIEW_SAMPLES
    from maps.generate import generate

    net = generate("grid", n=900, seed=1)
    w = make_window(net)
    tool = w.tools["billboards"]
    tool.panel.sp_k.setValue(3)
    tool.panel.cb_method.setCurrentText("sampled")
    texts: list[str] = []
    seen_sites: list[list[int]] = []
    orig = tool._show

    def spy(result):
        seen_sites.append(result.sites.tolist())
        orig(result)

    tool._show = spy
    real_set = tool.panel.set_progress
    tool.panel.set_progress = lambda f, t="": (texts.append(t), real_set(f, t))
    tool.run()
    qtbot.waitUntil(lambda: tool.result is not None and tool.result.stopped_by == "bound",
                    timeout=120000)
    assert tool._partials and seen_sites  # partial answers were shown before the end
    assert any("refining" in tool.refining_text(p) for p in tool._partials)
    # the first answer: the first samples' sites, before the first round ends
    first = tool._partials[0]
    assert first.stopped_by == "preview" and first.samples == PREVIEW_SAMPLES
    assert tool.refining_text(first).startswith(f"first answer: {PREVIEW_SAMPLES} samples")
    # (the map shows the latest partial at each progress event: under load the preview
    # and the first round can end between two events)
    assert seen_sites[0] in [p.sites.tolist() for p in tool._partials]
    assert tool.result.samples < tool.result.sample_bound
    assert tool.result.sampling == "progressive"
    # the phase chart: one row per round, samples against the fixed bound (two rounds that
    # end between progress events each get theirs: one was missing now and then)
    rows = w.chart.runs["billboard sampling"]
    assert rows["active"].tolist() == [p.samples for p in tool._partials] + [tool.result.samples]
    assert rows["active"].tolist()[-1] == tool.result.samples
    assert set(rows["messages"].tolist()) == {tool.result.sample_bound}
    w.chart.redraw()
    assert any("samples" in t for t in w.chart.legend_labels())
    assert "fixed bound" in " ".join(w.chart.legend_labels())
    # a cancel after a round keeps that round's sites and says so
    tool._cancelled()
    assert tool.result is tool._partials[-1] and tool.result.stopped_by == "cancelled"
    assert "kept the best so far" in texts[-1]
    qtbot.waitUntil(lambda: not w.loader.busy(), timeout=120000)  # its warm-up, then close
