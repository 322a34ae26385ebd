"""Before / after what-if edits, side by side: the job that runs an ``app.jobs`` function
on the unedited and on the edited map, and the table that shows the two answers.

The billboards and OD tools use it on request ("Before / after edits"): both runs share
one worker job (a second job would supersede the first), the edited map being the
window's ``scenario`` (its network is made in the worker).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from app.jobs.common import report

from .workers import JobContext

SLOWER = QColor("#b2182b")
FASTER = QColor("#2166ac")


def before_after_job(run: Callable, base_net, scenario, make_opts: Callable) -> Callable:
    """A worker job: ``run(net, make_opts(net), progress=, cancel=)`` on ``base_net``, then
    on the scenario's edited network; returns (before, after)."""

    def fn(ctx: JobContext):
        def part(k: int):
            return lambda frac, msg="": report(ctx.progress, (k + (frac or 0.0)) / 2,
                                               ("before: " if k == 0 else "after: ") + (msg or ""))

        before = run(base_net, make_opts(base_net), progress=part(0), cancel=ctx.cancelled)
        edited = scenario.network()
        after = run(edited, make_opts(edited), progress=part(1), cancel=ctx.cancelled)
        return before, after

    fn.__name__ = getattr(run, "__module__", "compare").rsplit(".", 1)[-1]
    return fn


class BeforeAfterTable(QTableWidget):
    """Rows of (cells..., change): the last column coloured red when it grew, blue when
    it shrank."""

    def __init__(self, headers: list[str], parent=None):
        super().__init__(0, len(headers), parent)
        self.setHorizontalHeaderLabels(headers)
        self.verticalHeader().setVisible(False)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setMinimumHeight(120)
        self.setVisible(False)
        self.rows: list[tuple] = []  # what is shown (tests read it)

    def show_rows(self, rows: list[tuple], signs: list[int] | None = None) -> None:
        """``rows``: one tuple of cell texts per row; ``signs``: per row, >0 worse (red),
        <0 better (blue), 0 plain, for the last column."""
        self.rows = list(rows)
        self.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                item = QTableWidgetItem(str(text))
                if signs is not None and j == len(row) - 1 and signs[i]:
                    item.setForeground(SLOWER if signs[i] > 0 else FASTER)
                self.setItem(i, j, item)
        self.setVisible(True)

    def clear_rows(self) -> None:
        self.rows = []
        self.setRowCount(0)
        self.setVisible(False)
