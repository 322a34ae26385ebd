"""The window's route index built and compiled in a child process (issue 41): the window's
worker only loads the cached index (nothing of the index is built, and no numba kernel is
compiled, in the window's process); then clicks search through it."""

from __future__ import annotations

import threading

import pytest

from app.jobs import compile_ahead, index_ahead


@pytest.fixture
def cold(tmp_path, monkeypatch, road_net):
    """An empty map cache and manifest folder, nothing kept in memory, children on."""
    from collections import OrderedDict

    import app.jobs.index as index
    from gpu_core.graph import forget_prepared

    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SIGNPOST_WARM_DIR", str(tmp_path / "numba" / "signpost-warm"))
    monkeypatch.setenv(compile_ahead.ENV, "1")
    monkeypatch.setattr(compile_ahead, "start", lambda s, b: object())  # not this test's
    forget_prepared(road_net)
    monkeypatch.setattr(index, "_RECENT", OrderedDict())
    return tmp_path


def test_the_window_loads_the_index_the_child_built(qtbot, make_window, road_net, cold,
                                                    monkeypatch):
    from numba.core.dispatcher import Dispatcher

    def built(*a, **k):
        raise AssertionError("the route index was built in the window's process")

    monkeypatch.setattr("gpu_core.hierarchy.key_hierarchy", built)
    monkeypatch.setattr("gpu_core.hierarchy.build_topology", built)
    compiled = []
    real = Dispatcher.compile

    def spy(disp, sig):
        out = real(disp, sig)
        mod = getattr(disp.py_func, "__module__", "")
        if mod.startswith("gpu_core.") and sum(disp._cache_misses.values()):
            compiled.append((mod, disp.py_func.__name__, threading.current_thread().name))
        return out

    monkeypatch.setattr(Dispatcher, "compile", spy)
    children = []
    real_build = index_ahead.build_in_child
    monkeypatch.setattr(index_ahead, "build_in_child",
                        lambda g, **kw: children.append(g) or real_build(g, **kw))
    win = make_window(road_net)
    ri = win.route_index
    assert index_ahead.needed(win.graph)
    ri.build()
    qtbot.waitUntil(lambda: ri.state in ("ready", "failed"), timeout=300000)
    assert ri.state == "ready", ri.label.toolTip()
    assert ri.info.source == "cache" and len(children) == 1  # the child's file, loaded
    assert not compiled, f"numba compiled in the window's process: {compiled}"
    assert list((cold / "cache").glob("ch-*.npz"))
    assert not index_ahead.needed(win.graph)  # ready: the next window starts no child


def test_no_child_when_the_index_and_kernels_are_ready_or_turned_off(cold, road_net,
                                                                    monkeypatch):
    monkeypatch.setattr(index_ahead.index_later, "stage_ready", lambda s: True)
    assert index_ahead.needed(road_net)  # not cached yet: the child builds it
    monkeypatch.setattr("os.path.exists", lambda p: True)  # the index is cached
    assert not index_ahead.needed(road_net)
    monkeypatch.setattr(index_ahead.index_later, "stage_ready", lambda s: False)
    assert index_ahead.needed(road_net)  # cached, but its kernels are not compiled
    monkeypatch.setenv(compile_ahead.ENV, "0")
    assert not index_ahead.needed(road_net)
