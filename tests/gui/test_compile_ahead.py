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
    # what the child runs (cached here), not putting this test's session behind the user
    monkeypatch.setattr("app.jobs.index_later.behind_the_user", lambda: None)
    assert compile_ahead.main(["cpu", "auto"]) == 0


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


def test_the_after_load_child_is_behind_the_window_in_its_own_session(monkeypatch):
    """The window's compile child (a session of its own) puts its session behind the user
    too (``index_later.behind_the_user``), not only itself: with Linux's autogroup its
    nice alone left it beside the window's thread for the cores."""
    from app.jobs import compile_ahead, index_later

    calls: list[str] = []
    monkeypatch.setattr(index_later, "behind_the_user", lambda: calls.append("behind"))
    monkeypatch.setattr(compile_ahead, "warm", lambda strategies, backend: calls.append(
        f"warm {backend} {','.join(strategies)}"))
    assert compile_ahead.main(["cpu", "auto"]) == 0
    assert calls == ["behind", "warm cpu auto"]
