"""The phase chart's log axis is set again only when its decades change (issue 27: new
ticks repaint the axis, 4 ms a click), and a view the user moved is put back."""

from __future__ import annotations

from tests.gui.helpers import mouse_click_map


def test_same_decades_keep_the_axis_and_a_moved_view_is_reset(qtbot, window, fixture_net):
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, float(fixture_net.x[5]), float(fixture_net.y[5]))
    chart, res = window.chart, window.tools["route"].result
    chart.redraw()
    axis = chart.p_frontier.getAxis("left")
    calls = []
    real = axis.setTicks
    axis.setTicks = lambda ticks: calls.append(ticks) or real(ticks)
    y0 = tuple(chart.p_frontier.viewRange()[1])
    chart.set_run("auto", res.phases, res.backend, search_s=res.elapsed_s)
    chart.redraw()
    assert calls == [] and tuple(chart.p_frontier.viewRange()[1]) == y0
    chart.p_frontier.setYRange(10, 20, padding=0)  # the user zoomed the chart
    chart.redraw()
    assert len(calls) == 1 and tuple(chart.p_frontier.viewRange()[1]) == y0
    labels = [t for _, t in calls[0][0]]
    assert labels and all(t for t in labels)  # whole decades, labelled


def test_same_run_keeps_the_x_range_and_it_covers_every_phase(qtbot, window, fixture_net):
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, float(fixture_net.x[5]), float(fixture_net.y[5]))
    chart, res = window.chart, window.tools["route"].result
    chart.redraw()
    moved = []
    chart.p_time.vb.sigXRangeChanged.connect(lambda *a: moved.append(a))
    chart.p_frontier.vb.sigXRangeChanged.connect(lambda *a: moved.append(a))
    for _ in range(3):  # the same rows again: the axes are not moved (nor repainted)
        chart.set_run("auto", res.phases, res.backend, search_s=res.elapsed_s)
        chart.redraw()
    assert moved == []
    last = float(max(r["phase"] for r in res.phases.rows))
    for p in (chart.p_frontier, chart.p_time):
        lo, hi = p.viewRange()[0]
        assert lo < 0.0 and hi > last and hi - lo <= 1.05 * max(last, 1.0) + 0.5
    chart.p_frontier.setXRange(last + 5, last + 50, padding=0)  # the user panned away
    chart.redraw()
    lo, hi = chart.p_frontier.viewRange()[0]
    assert lo <= 0.0 and hi >= last


def test_a_new_run_name_keeps_the_one_run_s_items(qtbot, window, fixture_net):
    """An edit's search after a click's (issue 41): the chart's one run is renamed in place,
    its plot items and legend entry kept (no clear and refill of the axes), and the new
    run's rows are all drawn once they come."""
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, float(fixture_net.x[5]), float(fixture_net.y[5]))
    chart, res = window.chart, window.tools["route"].result
    chart.redraw()
    (old,) = chart.runs
    items = chart._items[old]
    chart.restart("edit")
    assert list(chart.runs) == ["edit"] and chart.runs["edit"].size == 0
    assert chart._items == {"edit": items} and old not in chart.meta
    assert [label.text for _s, label in chart.legend.items] == ["edit"]
    chart.set_run("edit", res.phases, res.backend, search_s=res.elapsed_s)
    chart.redraw()
    x, _y = items[0].getData()
    assert len(x) == len(res.phases) and chart.legend_labels() == [chart.run_label("edit")]
    chart.begin_run("compare")  # two runs: the next restart clears and starts afresh
    chart.restart("edit")
    assert list(chart.runs) == ["edit"] and chart._items == {}


def test_a_result_is_drawn_one_tick_after_it_came(qtbot, window, fixture_net):
    """A run's result redraws the chart at the timer's next tick, not in the event-loop turn
    that draws the result's field and route (issue 41), and once."""
    with qtbot.waitSignal(window.searchFinished, timeout=20000):
        mouse_click_map(qtbot, window, float(fixture_net.x[5]), float(fixture_net.y[5]))
    chart, res = window.chart, window.tools["route"].result
    chart.timer.stop()
    chart._tick()
    chart._tick()  # anything due drawn
    drawn: list[int] = []
    real = chart.redraw
    chart.redraw = lambda: drawn.append(chart.num_phases()) or real()  # type: ignore[method-assign]
    chart.set_run("auto", res.phases, res.backend, search_s=res.elapsed_s)
    chart._tick()
    assert drawn == []
    chart._tick()
    chart._tick()
    assert drawn == [len(res.phases)]
