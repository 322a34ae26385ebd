"""The billboards sampling chart's legend names its two lines "samples" and "fixed bound"
from the first round on (the second kept the generic "messages" when the line was listed
at its creation: seen in CI when the first round's row came before the first redraw)."""

from __future__ import annotations

import numpy as np

from app.gui.phase_chart import PhaseChart
from gpu_core.programs import SUPERSTEP_DTYPE

RUN = "billboard sampling"


def _row(step: int, samples: int, bound: int) -> np.ndarray:
    row = np.zeros(1, dtype=SUPERSTEP_DTYPE)
    row["superstep"], row["active"], row["messages"], row["time_us"] = step, samples, bound, 1e5
    return row


def test_samples_against_the_fixed_bound_from_the_first_row(qtbot):
    chart = PhaseChart()
    qtbot.addWidget(chart)
    chart.begin_run(RUN, supersteps=True)
    chart.append(RUN, _row(1, 64, 14_771))
    chart.redraw()
    assert chart.legend_labels() == [f"{RUN}: samples", f"{RUN}: fixed bound"]
    chart.append(RUN, _row(2, 512, 14_771))
    chart.redraw()
    assert chart.legend_labels() == [f"{RUN}: samples", f"{RUN}: fixed bound"]


def test_equal_counts_stay_one_line(qtbot):
    chart = PhaseChart()
    qtbot.addWidget(chart)
    chart.begin_run("pagerank", supersteps=True)
    chart.append("pagerank", _row(1, 100, 100))
    chart.redraw()
    assert chart.legend_labels() == ["pagerank: active = messages"]
