"""The window's kernels compiled in a child process (issue 41): no thread of the window
compiles the warm-up's kernels, and a first click on a small map answers meanwhile by
scipy (the small-work path), compiling nothing of the search."""

from __future__ import annotations

import importlib
import threading

from app.jobs import compile_ahead
from tests.gui.helpers import mouse_click_map

small_mod = importlib.import_module("gpu_core.sssp.cpu.small")


def test_the_child_is_started_with_the_strategies(monkeypatch):
    got = []
    monkeypatch.setattr("subprocess.Popen", lambda argv, **kw: got.append(argv) or "child")
    assert compile_ahead.start(["delta", "auto"], "cpu") == "child"
    assert got[0][1:] == ["-m", "app.jobs.compile_ahead", "cpu", "delta", "auto"]
    assert compile_ahead.main(["cpu", "auto"]) == 0  # what the child runs (cached here)


def test_a_first_click_answers_while_the_child_compiles(qtbot, make_window, fixture_net,
                                                         monkeypatch):
    from numba.core.dispatcher import Dispatcher

    monkeypatch.setenv(compile_ahead.ENV, "1")
    started, warmed = [], []
    monkeypatch.setattr(compile_ahead, "start", lambda s, b: started.append((s, b)) or object())
    monkeypatch.setattr(compile_ahead, "warm", lambda *a: warmed.append(a))
    monkeypatch.setattr(small_mod, "kernel_ready", lambda: False)  # the child not done yet
    asked = []
    real = Dispatcher.compile

    def spy(disp, sig):
        mod = getattr(disp.py_func, "__module__", "")
        if mod.startswith("gpu_core.sssp"):
            asked.append((mod, threading.current_thread().name))
        return real(disp, sig)

    monkeypatch.setattr(Dispatcher, "compile", spy)
    w = make_window(fixture_net)
    qtbot.waitUntil(lambda: bool(started), timeout=30000)
    with qtbot.waitSignal(w.searchFinished, timeout=20000):
        mouse_click_map(qtbot, w, float(fixture_net.x[0]), float(fixture_net.y[0]))
    assert w.compile_child is not None and not warmed
    assert not asked, f"the search's kernels were compiled in the window's process: {asked}"
