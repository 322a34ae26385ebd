"""``signpost bench gui``'s rows for the window's heavy states (issue 42): isochrone
polygons and big exports on a map, each with the GUI thread's longest silence (a 10 ms
timer on it), the time to the end and the process's resident-memory growth.

One window per map, offscreen, without the background route index; a source clicked at node 0, the distance field drawn,
then: polygons ticked on (5 bands); the field exported as GeoJSON and the view as SVG on
the export worker. A map past the polygons' limit is reported as refused.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any

from .gui_window import _wait  # the event loop run until a condition holds

STATE_COLS = [
    ("map", "map", "{}"),
    ("state", "state", "{}"),
    ("total_s", "time (s)", "{:.2f}"),
    ("gui_stall_ms", "GUI thread silent (ms)", "{:.0f}"),
    ("rss_mb", "RSS growth (MB)", "{:.0f}"),
    ("note", "note", "{}"),
]


def _rss() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


class _Pulse:
    """A 10 ms timer on the GUI thread: its longest gap, and the RSS peak at its ticks."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.t = [time.perf_counter()]
        self.rss0 = self.rss = _rss()
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        self.t.append(time.perf_counter())
        self.rss = max(self.rss, _rss())

    def stop(self) -> tuple[float, float]:
        self.timer.stop()
        self.t.append(time.perf_counter())
        gap = max(b - a for a, b in zip(self.t, self.t[1:], strict=False))
        return gap * 1e3, (self.rss - self.rss0) / 2**20


def measure_states(net, label: str, timeout_s: float = 600.0) -> list[dict]:
    """The rows of ``net``: polygons, field GeoJSON export, view SVG export."""
    os.environ.setdefault("SIGNPOST_NO_DIALOGS", "1")
    from app.gui.main_window import MainWindow
    from app.gui.settings import Settings
    from app.gui.tools.route_tool import RouteTool
    from app.jobs import isochrones

    folder = tempfile.mkdtemp(prefix="signpost-bench-states-")
    w = MainWindow(Settings(os.path.join(folder, "settings.ini")), open_sample=False)
    rows: list[dict] = []
    try:
        w.route_index.set_auto(False)  # no index build competing for the 2 threads
        w.resize(1600, 1000)
        w.show()
        w.set_network(net)
        tool, panel = w.tool(RouteTool), w.algo_panel
        panel.sp_bands.setValue(5)
        w.on_map_click(float(net.x[0]), float(net.y[0]), "source")
        _wait(lambda: tool.result is not None and not w.compute.busy(), timeout_s)
        row: dict[str, Any] = {"map": label, "state": "isochrone polygons (5 bands)", "note": ""}
        pulse, t0 = _Pulse(), time.perf_counter()
        panel.chk_polys.setChecked(True)
        refused = net.num_arcs > isochrones.POLYGON_MAX_ARCS
        done = refused or _wait(lambda: tool.isochrones is not None, timeout_s)
        row["total_s"] = time.perf_counter() - t0
        row["gui_stall_ms"], row["rss_mb"] = pulse.stop()
        row["note"] = ("refused (over the polygons' arc limit)" if refused
                       else "" if done else f"not done in {timeout_s:.0f} s")
        rows.append(row)
        panel.chk_polys.setChecked(False)
        for what, name in (("field", "field.geojson"), ("view", "view.svg")):
            path = os.path.join(folder, name)
            pulse, t0 = _Pulse(), time.perf_counter()
            w.exports.start(what, path)
            ok = _wait(lambda: not w.exports.busy() and not w.exports.bar.isVisible(), timeout_s)
            total = time.perf_counter() - t0
            stall, rss = pulse.stop()
            size = os.path.getsize(path) / 2**20 if os.path.exists(path) else 0.0
            rows.append({"map": label, "state": f"export {name}", "total_s": total,
                         "gui_stall_ms": stall, "rss_mb": rss,
                         "note": f"{size:.2f} MB written" if ok else f"not done in {timeout_s:.0f} s"})
            if os.path.exists(path):
                os.unlink(path)
    finally:
        w.shutdown_workers()
        w.close()
        w.deleteLater()
    return rows


def states_table(rows: list[dict]) -> str:
    head = "| " + " | ".join(c[1] for c in STATE_COLS) + " |"
    sep = "|" + "|".join("---" for _ in STATE_COLS) + "|"
    body = ["| " + " | ".join(fmt.format(r[k]) for k, _, fmt in STATE_COLS) + " |" for r in rows]
    return "\n".join([head, sep, *body])
