"""``signpost bench gui``, the window part (issue 27): how long the GUI thread stalls while
a map opens, on clicks and while the source is dragged, measured with a 10 ms heartbeat
timer on the GUI thread (its longest gap, less the 10 ms period), click -> field drawn,
and the field updates per second while the source is dragged. The drag's Qt-free part
(search + colouring the pixels of a window-sized view) is :func:`drag_frames`: it runs
where Qt cannot (the GPU machine), so the GPU search and the GUI side are measured apart
and together there.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

import numpy as np


def qapp():
    """The QApplication of a benchmark (offscreen without a display)."""
    from app.gui._compat import check_binding

    check_binding()
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])

HEARTBEAT_MS = 10


class Heartbeat:
    """A 10 ms QTimer on the GUI thread; ``stall_ms()`` is the longest gap between two
    ticks since the last ``reset()``, less the period (what the user felt as frozen);
    ``cpu_ms()`` the most CPU time the GUI thread spent between two ticks (the part of a
    stall that is the window's own work, not its wait for a core or for the GIL)."""

    last: float  # perf_counter of the last tick (set by reset)
    worst: float  # the longest gap since the last reset, in seconds
    last_cpu: float  # the GUI thread's thread_time at the last tick
    worst_cpu: float  # the most GUI-thread CPU seconds between two ticks since the reset

    def __init__(self):
        from PySide6.QtCore import QTimer

        self.timer = QTimer()
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._tick)
        self.reset()
        self.timer.start()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.worst = max(self.worst, now - self.last)
        self.worst_cpu = max(self.worst_cpu, cpu - self.last_cpu)
        self.last, self.last_cpu = now, cpu

    def reset(self) -> None:
        self.last, self.last_cpu = time.perf_counter(), time.thread_time()
        self.worst = self.worst_cpu = 0.0

    def stall_ms(self) -> float:
        self._tick()
        return max(self.worst * 1e3 - HEARTBEAT_MS, 0.0)

    def cpu_ms(self) -> float:
        self._tick()
        return self.worst_cpu * 1e3

    def stop(self) -> None:
        self.timer.stop()


def _wait(cond, timeout_s: float) -> bool:
    """Run the event loop until ``cond()`` or the timeout; True when it held."""
    from PySide6.QtCore import QCoreApplication

    end = time.perf_counter() + timeout_s
    while not cond():
        if time.perf_counter() > end:
            return False
        QCoreApplication.processEvents()
        time.sleep(0.001)
    return True


def measure_window(path: str, args) -> dict:
    """Open ``path`` in the real window (CPU backend), click and drag; see the module doc."""
    from app.gui.settings import Settings

    os.environ["SIGNPOST_NO_DIALOGS"] = "1"
    row: dict = {"map": os.path.basename(path)}
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(os.path.join(tmp, "s.ini"))
        cache = os.environ.get("SIGNPOST_CACHE_DIR")
        if not getattr(args, "index", True):  # no index: none built, none found in the cache
            settings.q.setValue("index/auto", "false")
            os.environ["SIGNPOST_CACHE_DIR"] = tmp
        try:
            return _measure(path, args, settings, row)
        finally:
            if cache is None:
                os.environ.pop("SIGNPOST_CACHE_DIR", None)
            else:
                os.environ["SIGNPOST_CACHE_DIR"] = cache


def _measure(path: str, args, settings, row: dict) -> dict:
    """measure_window in ``settings`` (a window of its own, closed at the end)."""
    from app.gui.main_window import MainWindow
    from app.gui.tools.route_tool import RouteTool

    win = MainWindow(settings, open_sample=False)
    win.resize(*(int(v) for v in args.size.lower().split("x")))
    win.algo_panel.cb_backend.setCurrentText("cpu")
    win.show()
    hb = Heartbeat()
    loaded = []
    win.mapLoaded.connect(lambda *_: loaded.append(time.perf_counter()))
    t0 = time.perf_counter()
    win.show_map(path)
    _wait(lambda: bool(loaded), 600)
    row["open_drawn_s"] = loaded[0] - t0 if loaded else float("nan")
    _wait(lambda: win.snapper is not None or not win._snapper_pending, 600)
    row["open_clicks_s"] = time.perf_counter() - t0
    _wait(lambda: not win.loader.busy(), 600)  # the after-load warm-up
    row["stall_open_ms"] = hb.stall_ms()
    # where the open's time goes (the loader thread's steps, app.gui.loading)
    times = dict(win.open_times)
    row["open_read_s"] = times.get("read", float("nan"))
    row["open_prep_s"] = times.get("geometry", 0.0) + times.get("drawing", 0.0)
    row["open_snap_s"] = times.get("snap index", float("nan"))
    row["open_after_read_s"] = row["open_clicks_s"] - row["open_read_s"]
    if getattr(args, "index", True):  # the route index, built or loaded in the background
        ri = win.route_index
        hb.reset()
        t_i = time.perf_counter()
        ri.build()
        _wait(lambda: ri.state != "building", 1800)
        row["index_ready_s"] = time.perf_counter() - t_i
        row["stall_index_ms"] = hb.stall_ms()
        row["index"] = ri.state if ri.info is None else f"{ri.state} ({ri.info.source})"
    net = win.net
    assert net is not None  # opened above
    rng = np.random.default_rng(args.seed + 2)
    road = np.unique(net.arc_sources()[net.edge_kind == 0])
    fields = []
    win.fieldChanged.connect(lambda: fields.append(time.perf_counter()))
    clicks, stalls, searches = [], [], []
    route = win.tools["route"]
    assert isinstance(route, RouteTool)
    for k in range(args.clicks + 1):  # the first click loads kernels: not counted
        a = int(rng.choice(road))
        n0 = len(fields)
        hb.reset()
        t1 = time.perf_counter()
        win.canvas.click_at(float(net.x[a]), float(net.y[a]), "left")
        _wait(lambda n0=n0: len(fields) > n0, 600)
        win.repaint()
        if k:
            clicks.append(time.perf_counter() - t1)
            stalls.append(hb.stall_ms())
            assert route.result is not None  # the field came: the route was searched
            searches.append(route.result.elapsed_s)
    row["click_field_ms"] = statistics.median(clicks) * 1e3
    row["click_search_ms"] = statistics.median(searches) * 1e3
    assert route.result is not None
    row["search"] = route.result.extra.get("index", "plain")
    row["stall_click_ms"] = max(stalls)
    row.update(_drag(win, net, hb, fields, args))
    hb.stop()
    hb.timer.deleteLater()
    close_window(win)
    return row


def close_window(win) -> None:
    """Close a measured window and delete it now: not at interpreter exit (pyqtgraph items
    then can crash), nor at the (rare, issue 27) garbage collection: until then its timers
    (the phase chart's 16 ms tick) ran in the windows measured after it."""
    from PySide6.QtCore import QCoreApplication, QEvent

    win.close()
    win.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def _drag(win, net, hb, fields, args) -> dict:
    """Move the source marker along a route at 60 Hz for ``args.drag_s`` seconds (the
    canvas's sourceDragged signal, as a mouse drag emits it); count fields drawn."""
    from app.jobs.route import read_route

    tool = win.tools["route"]
    res = tool.result
    far = int(np.argmax(res.dist))
    path = read_route(net, res, tool.source, far)
    xs, ys = np.asarray(path.xs), np.asarray(path.ys)
    frames = max(int(args.drag_s * 60), 2)
    k = np.linspace(0, xs.size - 1, frames).astype(int)
    n0 = len(fields)
    hb.reset()
    t0 = time.perf_counter()
    for i in range(frames):
        win.canvas.sourceDragged.emit(float(xs[k[i]]), float(ys[k[i]]))
        _wait(lambda i=i: time.perf_counter() - t0 >= (i + 1) / 60, 1.0)
    _wait(lambda: tool._drag_job not in win._handlers and not tool._drag_held, 600)
    dt = time.perf_counter() - t0
    return {"drag_fps": (len(fields) - n0) / dt, "stall_drag_ms": hb.stall_ms()}


def drag_frames(net, backend: str, frames: int, size=(1600, 1000), seed: int = 1,
                index: bool = False, path=None) -> dict:
    """The Qt-free part of a drag frame: one search from a source moving along the map and
    the field coloured over a window-sized pixel→arc image of the whole map (the raster
    level of detail; ``app.gui.raster``). Median ms of each and of both. ``index``:
    search through the map's route index (loaded, or built once first: its seconds are
    in ``index_s``). ``path``: the sources of the frames (default: a seeded random walk)."""
    from app.gui.geometry import build_geometry, field_lut
    from app.gui.raster import build_segments, field_image, lut_argb, render_ids
    from gpu_core.sssp import sssp

    geo = build_geometry(net)
    seg = build_segments(net, geo)
    w, h = size
    x0, x1, y0, y1 = net.x.min(), net.x.max(), net.y.min(), net.y.max()
    span = max(x1 - x0, (y1 - y0) * w / h)
    ids = render_ids(seg, (float(x0), float(y0), float(span), float(span * h / w)), (w, h))
    lut = lut_argb(field_lut("turbo", 256))
    rng = np.random.default_rng(seed)
    start = int(rng.integers(net.num_nodes))
    kw: dict = {}
    row: dict = {"index": "plain"}
    if index:
        from app.jobs.index import key_hierarchy_for

        h, info = key_hierarchy_for(net, policy="on")
        if h is not None:
            kw["index"] = h
            row = {"index": f"phast ({info.source} {info.seconds:.0f} s)"}
    sssp(net, start, strategy="auto", backend=backend, **kw)  # kernels loaded
    out = None
    ts_s, ts_c = [], []
    v = start
    for i in range(frames if path is None else len(path)):
        if path is not None:
            v = int(path[i])
        else:
            nb = net.indices[net.indptr[v]:net.indptr[v + 1]]
            v = int(nb[rng.integers(nb.size)]) if nb.size else int(rng.integers(net.num_nodes))
        t0 = time.perf_counter()
        res = sssp(net, v, strategy="auto", backend=backend, **kw)
        t1 = time.perf_counter()
        out, _ = field_image(ids, geo, seg, res.dist, lut, 0, out)
        t2 = time.perf_counter()
        ts_s.append(t1 - t0)
        ts_c.append(t2 - t1)
    s, c = statistics.median(ts_s) * 1e3, statistics.median(ts_c) * 1e3
    return {**row, "backend": backend, "search_ms": s, "colour_ms": c, "frame_ms": s + c,
            "fps": 1e3 / (s + c)}
