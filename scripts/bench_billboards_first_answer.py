"""The window's first billboards answer (issue 43): from a click on Place to the first sites
drawn, on the generated Kanto-sized map (seed 1, 1,428,025 nodes), K = 5, offscreen.

    python scripts/bench_billboards_first_answer.py [CLICKS] [--settle]

The map is opened, its route index made ready (from the cache folder when there), then
each click runs ``BillboardsTool.run(confirmed=True)`` and waits for the first sites drawn
(the preview) and the next ones (the first round), then cancels. ``--settle`` clicks only
once the index's worker is idle (its billboards warm-up done). Prints one line per click
with the load average (docs/perf/billboards_cpu.md)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("SIGNPOST_NO_DIALOGS", "1")


def _wait(pred: Callable[[], bool], limit_s: float) -> float:
    from PySide6.QtWidgets import QApplication

    t0 = time.perf_counter()
    while not pred():
        QApplication.processEvents()
        time.sleep(0.005)
        if time.perf_counter() - t0 > limit_s:
            raise TimeoutError(f"not within {limit_s} s")
    return time.perf_counter() - t0


def main(argv: list[str]) -> int:
    from app.bench.gui import _qapp

    _qapp()
    from app.gui.main_window import MainWindow
    from app.gui.settings import Settings
    from app.gui.staging import idle
    from maps.generate import generate

    clicks = int(next((a for a in argv if a.isdigit()), "2"))
    net = generate("kanto", seed=1)
    w = MainWindow(Settings(os.path.join(tempfile.mkdtemp(), "settings.json")),
                   open_sample=False)
    w.resize(1000, 700)
    w.show()
    w.set_network(net)
    ready = _wait(lambda: w.route_index.state == "ready" and idle(w), 1800)
    print(f"route index ready after {ready:.1f} s", flush=True)
    if "--settle" in argv:
        print(f"its worker idle after {_wait(lambda: not w.route_index.runner.busy(), 300):.2f} s")
    tool = w.tools["billboards"]
    tool.panel.sp_k.setValue(5)
    show = tool._show
    for c in range(1, clicks + 1):
        shown: list = []
        tool._show = lambda r, shown=shown: (shown.append((time.perf_counter(), r)), show(r))
        t0 = time.perf_counter()
        tool.run(confirmed=True)
        try:
            _wait(lambda shown=shown: len(shown) >= 1, 600)
            first = shown[0][0] - t0
            _wait(lambda shown=shown: len(shown) >= 2, 600)
            r0, r1 = shown[0][1], shown[1][1]
            print(f"click {c}: first sites {first:.2f} s ({r0.stopped_by}, {r0.samples} samples,"
                  f" {r0.sites.tolist()}), next {shown[1][0] - t0:.2f} s ({r1.samples} samples,"
                  f" {r1.sites.tolist()}), load {os.getloadavg()[0]:.2f}", flush=True)
        finally:
            w.compute.cancel()
            _wait(lambda: idle(w), 600)
            tool._show = show
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
