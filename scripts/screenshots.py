"""Screenshots of every tool of the app at 1024 × 700 and 1600 × 1000, offscreen, on the
bundled Helsinki sample (``app.gui.screens`` sets each tool's screen up as a user would),
and the clipped or overlapping widgets found on each (``app.gui.layout_check``).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py docs/screenshots
    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py /tmp/shots --tools route od --sizes 1024x700

Writes ``<tool>-<W>x<H>.png``; exit status 1 when a screen has a clipped widget (each
printed on one line).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SIGNPOST_NO_DIALOGS"] = "1"


def main() -> int:
    from app.gui.screens import SIZES, TOOL_ORDER

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--tools", nargs="*", default=list(TOOL_ORDER), choices=TOOL_ORDER)
    p.add_argument("--sizes", nargs="*", default=[f"{w}x{h}" for w, h in SIZES])
    p.add_argument("--profile", default="multimodal")
    args = p.parse_args()

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from app.gui.export import view_image
    from app.gui.launch import dispose
    from app.gui.main_window import MainWindow, sample_map_path
    from app.gui.screens import stage, tool_problems
    from app.gui.settings import Settings

    _app = QApplication.instance() or QApplication([])

    def settle(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def wait(pred, timeout_s: float) -> None:
        end = time.monotonic() + timeout_s
        while not pred() and time.monotonic() < end:
            settle(50)

    os.makedirs(args.out_dir, exist_ok=True)
    bad = 0
    for size in args.sizes:
        w, h = (int(v) for v in size.split("x"))
        for tool in args.tools:
            with tempfile.TemporaryDirectory() as tmp:
                win = MainWindow(Settings(os.path.join(tmp, "s.ini")), open_sample=False)
                win.resize(w, h)
                win.algo_panel.cb_profile.blockSignals(True)
                win.algo_panel.cb_profile.setCurrentText(args.profile)
                win.algo_panel.cb_profile.blockSignals(False)
                win.show()
                win.default_layout()
                win.show_map(sample_map_path(), args.profile)
                wait(lambda win=win: win.net is not None and not win.loader.busy(), 300)
                stage(win, tool, wait)
                settle(400)
                out = os.path.join(args.out_dir, f"{tool}-{w}x{h}.png")
                view_image(win, out)
                found = tool_problems(win, tool)
                print(f"wrote {out}: {len(found)} problems")
                for line in found:
                    print(f"  {tool} {w}x{h}: {line}")
                bad += len(found)
                win.shutdown_workers()
                dispose(win)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
