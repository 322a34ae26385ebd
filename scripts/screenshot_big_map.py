"""A big map in the window (the raster level of detail, issue 27): opened, a first left click
near its middle, the window written at each size as ``<name>-route-<W>x<H>.png``.

    signpost generate kanto --out /tmp/kanto.spn
    QT_QPA_PLATFORM=offscreen python scripts/screenshot_big_map.py /tmp/kanto.spn docs/screenshots --name kanto
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


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("map")
    p.add_argument("out_dir")
    p.add_argument("--name", default="big")
    p.add_argument("--sizes", nargs="*", default=["1024x700", "1600x1000"])
    args = p.parse_args()

    import numpy as np
    from PySide6.QtWidgets import QApplication

    from app.bench.gui_window import _wait
    from app.gui.export import view_image
    from app.gui.launch import dispose
    from app.gui.main_window import MainWindow
    from app.gui.settings import Settings

    _app = QApplication.instance() or QApplication([])
    os.makedirs(args.out_dir, exist_ok=True)
    for size in args.sizes:
        w, h = (int(v) for v in size.split("x"))
        with tempfile.TemporaryDirectory() as tmp:
            win = MainWindow(Settings(os.path.join(tmp, "s.ini")), open_sample=False)
            win.resize(w, h)
            win.algo_panel.cb_backend.setCurrentText("cpu")
            win.show()
            win.default_layout()
            win.show_map(args.map)
            _wait(lambda win=win: win.net is not None and win.snapper is not None
                  and not win.loader.busy(), 600)
            _wait(lambda win=win: not win.canvas.raster_mode or win.canvas.raster.ids is not None, 60)
            net = win.net
            fields: list = []
            win.fieldChanged.connect(lambda f=fields: f.append(1))
            mid = int(np.argmin((net.x - np.median(net.x)) ** 2 + (net.y - np.median(net.y)) ** 2))
            win.canvas.click_at(float(net.x[mid]), float(net.y[mid]), "left")
            _wait(lambda f=fields: bool(f), 300)
            _wait(lambda: False, 0.5)  # the frame with the field
            out = os.path.join(args.out_dir, f"{args.name}-route-{w}x{h}.png")
            view_image(win, out)
            print(f"wrote {out}")
            win.shutdown_workers()
            dispose(win)
    return 0


if __name__ == "__main__":
    sys.exit(main())
