"""The README's what-if screenshot: a scenario's change view on the bundled Helsinki map.

Drives the real window offscreen, as a user would: open the sample map (walk profile),
route between two points, open a scenario file in the Edit tool (the route and the field
are repaired), turn the change view on, save the window.

    QT_QPA_PLATFORM=offscreen python scripts/screenshot_whatif.py \
        docs/screenshots/whatif-helsinki.geojson docs/screenshots/whatif-change.png
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SIGNPOST_NO_DIALOGS"] = "1"

ROUTE = ("24.9354,60.1653", "24.955,60.175")  # the start on the map (24.925,60.163 lay 632 m off it)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("scenario")
    p.add_argument("out")
    p.add_argument("--size", default="1600x1000")
    p.add_argument("--profile", default="walk")
    args = p.parse_args()

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.gui.export import view_image
    from app.gui.launch import dispose
    from app.gui.main_window import MainWindow, sample_map_path
    from app.gui.settings import Settings

    _app = QApplication.instance() or QApplication([])  # kept alive while the window lives

    def wait(signal, timeout_s: float = 120.0) -> None:
        loop = QEventLoop()
        signal.connect(loop.quit)
        QTimer.singleShot(int(timeout_s * 1000), loop.quit)
        loop.exec()
        signal.disconnect(loop.quit)

    def settle(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    with tempfile.TemporaryDirectory() as tmp:
        win = MainWindow(Settings(os.path.join(tmp, "s.ini")), open_sample=False)
        win.resize(*(int(v) for v in args.size.split("x")))
        win.default_layout()
        win.algo_panel.cb_profile.blockSignals(True)
        win.algo_panel.cb_profile.setCurrentText(args.profile)
        win.algo_panel.cb_profile.blockSignals(False)
        win.show()
        win.show_map(sample_map_path(), args.profile)
        wait(win.mapLoaded)
        while win.loader.busy():
            settle(100)
        win.tools["route"].route_between(*ROUTE)
        wait(win.routeShown)
        edit = win.tools["edit"]
        win.dock("edit").raise_()
        if not edit.open_scenario(args.scenario):
            print(f"error: {win.last_error}", file=sys.stderr)
            return 2
        wait(win.searchFinished)
        edit.set_change_view(True)
        while win.compute.busy():  # the unedited map's search, when it was not known
            settle(100)
        r = win.tools["route"].route
        if r is not None:  # the route and what the edits did around it fill the view
            win.canvas.vb.setRange(xRange=(float(r.xs.min()), float(r.xs.max())),
                                   yRange=(float(r.ys.min()), float(r.ys.max())), padding=0.12)
        settle(500)
        view_image(win, args.out)
        print(f"wrote {args.out}: " + win.statusBar().currentMessage())
        win.shutdown_workers()
        dispose(win)
    return 0


if __name__ == "__main__":
    sys.exit(main())
