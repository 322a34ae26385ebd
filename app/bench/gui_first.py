"""``signpost bench gui --first-contact``: a fresh install's first minutes in the window
(issue 41): how long the window's thread stalls, and what numba compiles in the window's
process, from opening a map through the first click to the first closed road.

Each map runs in a child process of its own (``python -m app.bench.gui_first MAP``) with
``NUMBA_CACHE_DIR`` and ``SIGNPOST_CACHE_DIR`` on empty folders, as on a fresh install: a
10 ms heartbeat on the window's thread gives the longest gap per phase (less the period),
and a numba ``numba:compile`` listener records every compilation in the window's process
(numba loads from its cache without that event: only real compilations are counted), with
the thread that compiled. The phases, as a user meets them:

- ``show``: the window's first paint, before any map (a user opens a map in a window
  already on screen; not in ``stall_ms``, which is about the window in use);
- ``open``: the map opened until the window accepts clicks and its after-load jobs are done;
- ``click``: the first left click until its distance field is drawn;
- ``index``: maps of ``AUTO_MIN_NODES`` nodes or more: until the automatic route index is
  ready (built by a child process);
- ``closure``: the edit tool closes a road of the route until the route follows (and, with
  a route index, until it is re-customized for the edit);
- ``rest``: until the after-load compile child and any index child have ended (the fresh
  session's first minutes), then 2 s more.

Per phase, ``<phase>_stall_ms`` is the longest gap and ``<phase>_cpu_ms`` the most CPU time
the window's thread spent between two heartbeats: on a shared machine a gap also holds the
time the thread waited for a core (or for the GIL), the CPU figure only its own work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PHASES = ("open", "click", "index", "closure", "rest")  # stall_ms: the longest of these


class _Compiles:
    """Every numba compilation in this process while installed: (function, thread, s)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, float]] = []

    def install(self) -> None:
        from numba.core import event

        seen = self.seen
        starts: dict[int, list[float]] = {}

        class Listener(event.Listener):
            def on_start(self, ev) -> None:
                starts.setdefault(threading.get_ident(), []).append(time.perf_counter())

            def on_end(self, ev) -> None:
                t0 = starts[threading.get_ident()].pop()
                disp = ev.data.get("dispatcher")
                fn = getattr(disp, "py_func", None)
                name = f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__name__', '?')}"
                seen.append((name, threading.current_thread().name, time.perf_counter() - t0))

        event.register("numba:compile", Listener())


class _Watch:
    """Where the window's thread is while the heartbeat is late (a sampling thread: the
    main thread's innermost Signpost/numba/scipy frames at each late sample), to tell a
    stall's cause; samples only run when this thread gets the GIL."""

    def __init__(self, hb, late_s: float = 0.06) -> None:
        self.hb, self.late_s = hb, late_s
        self.where: dict[str, float] = {}
        self.others: dict[str, float] = {}
        self._stop = False
        self._main = threading.main_thread().ident
        self.thread = threading.Thread(target=self._run, name="stall-watch", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import traceback

        step = 0.02
        while not self._stop:
            time.sleep(step)
            if time.perf_counter() - self.hb.last < self.late_s:
                continue
            frame = sys._current_frames().get(self._main or 0)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)
            keep = [f"{Path(f.filename).name}:{f.lineno}:{f.name}" for f in stack
                    if "signpost" in f.filename or "/app/" in f.filename
                    or "/gpu_core/" in f.filename or "/maps/" in f.filename][-3:]
            key = " < ".join(reversed(keep)) or f"{Path(stack[-1].filename).name}:{stack[-1].name}"
            self.where[key] = self.where.get(key, 0.0) + step
            names = {t.ident: t.name for t in threading.enumerate()}
            for ident, fr in sys._current_frames().items():  # the threads that may hold it
                if ident in (self._main, threading.get_ident()):
                    continue
                top = traceback.extract_stack(fr)[-2:]
                other = " < ".join(f"{Path(f.filename).name}:{f.lineno}:{f.name}"
                                   for f in reversed(top))
                k = f"[{names.get(ident, '?')}] {other}"
                self.others[k] = self.others.get(k, 0.0) + step

    def stop(self) -> list[str]:
        self._stop = True
        out = []
        for d in (self.where, self.others):
            top = sorted(d.items(), key=lambda kv: -kv[1])[:8]
            out += [f"{k} ({v * 1e3:.0f} ms)" for k, v in top]
        return out


def _wait(cond, timeout_s: float) -> bool:
    from .gui_window import _wait as wait

    return wait(cond, timeout_s)


def _digest(res) -> str:
    """sha1 of a search result's distances and parents ("" without one)."""
    import hashlib

    import numpy as np

    if res is None:
        return ""
    h = hashlib.sha1(np.ascontiguousarray(res.dist, np.int64).tobytes())
    h.update(np.ascontiguousarray(res.pred, np.int32).tobytes())
    return h.hexdigest()


def _children_done(win) -> bool:
    from app.jobs import index_later  # imported before the phases (first_contact)

    child = getattr(win, "compile_child", None)
    if child is not None and hasattr(child, "poll") and child.poll() is None:
        return False
    return not index_later._lock_path().exists()


def first_contact(path: str, size: str = "1600x1000", seed: int = 1) -> dict:
    """The row of one fresh session on ``path`` (run it in a process whose numba and map
    caches are empty: :func:`run_cold`)."""
    import numpy as np

    from .gui_window import Heartbeat, close_window, qapp

    qapp()
    compiles = _Compiles()
    compiles.install()
    from app.gui.main_window import MainWindow
    from app.gui.route_index import AUTO_MIN_NODES
    from app.gui.settings import Settings
    from app.gui.tools.edit_tool import EditTool
    from app.gui.tools.route_tool import RouteTool
    from app.jobs import index_later  # noqa: F401 (_children_done's: not in a phase)

    os.environ["SIGNPOST_NO_DIALOGS"] = "1"
    row: dict = {"map": os.path.basename(path)}
    tmp = tempfile.mkdtemp()
    win = MainWindow(Settings(os.path.join(tmp, "s.ini")), open_sample=False)
    win.resize(*(int(v) for v in size.lower().split("x")))
    win.algo_panel.cb_backend.setCurrentText("cpu")
    win.show()
    hb = Heartbeat()
    watch = _Watch(hb)
    t_start = time.perf_counter()

    def phase(name: str, t0: float) -> None:
        row[f"{name}_s"] = time.perf_counter() - t0
        row[f"{name}_stall_ms"] = hb.stall_ms()
        row[f"{name}_cpu_ms"] = hb.cpu_ms()
        row[f"{name}_compiled"] = len(compiles.seen) - row.get("_n", 0)
        row["_n"] = len(compiles.seen)
        hb.reset()

    t0 = time.perf_counter()
    _wait(lambda: time.perf_counter() > t0 + 0.5, 5)  # the first paint: the window on screen
    phase("show", t0)
    loaded: list[float] = []
    win.mapLoaded.connect(lambda *_: loaded.append(time.perf_counter()))
    heard: list[str] = []  # the loader's jobs whose end the window has handled
    win.loader.finished_job.connect(lambda _j, kind, _r: heard.append(kind))
    win.loader.failed_job.connect(lambda _j, kind, _e: heard.append(kind))
    win.loader.cancelled_job.connect(lambda _j, kind: heard.append(kind))
    t0 = time.perf_counter()
    win.show_map(path)
    _wait(lambda: bool(loaded), 600)
    _wait(lambda: win.snapper is not None or not win._snapper_pending, 600)
    # the after-load warm-up ended and its result handled (the map's parts, the first edit's
    # scenario): the worker idle is not enough, its result reaches the window an event later
    # and a click in between found the parts on the window's thread (~15 ms, 60K nodes)
    _wait(lambda: not win.loader.busy() and "warm-up" in heard, 600)
    phase("open", t0)
    net = win.net
    assert net is not None, "the map did not open"
    row["nodes"] = int(net.num_nodes)
    fields: list[float] = []
    win.fieldChanged.connect(lambda: fields.append(time.perf_counter()))
    route = win.tools["route"]
    assert isinstance(route, RouteTool)
    rng = np.random.default_rng(seed + 2)
    road = np.unique(net.arc_sources()[net.edge_kind == 0])
    a, b = (int(v) for v in rng.choice(road, 2, replace=False))
    t0 = time.perf_counter()
    win.canvas.click_at(float(net.x[a]), float(net.y[a]), "left")
    _wait(lambda: bool(fields), 600)
    phase("click", t0)
    res = route.result
    row["click_search"] = "none" if res is None else str(res.extra.get("index", res.extra.get(
        "variant", "plain")))
    row["source"] = -1 if route.source is None else int(route.source)
    row["click_hash"] = _digest(res)
    ri = win.route_index
    t0 = time.perf_counter()
    if net.num_nodes >= AUTO_MIN_NODES:
        _wait(lambda: ri.state not in ("none", "building") and not ri._deferred, 1800)
        row["index"] = ri.state if ri.info is None else f"{ri.state} ({ri.info.source})"
    phase("index", t0)
    # a route to close a road of: the destination, then the edit tool's closure
    n0 = len(fields)
    win.canvas.click_at(float(net.x[b]), float(net.y[b]), "right")
    _wait(lambda: route.route is not None and len(route.route.arcs) > 0 and len(fields) >= n0,
          600)
    _wait(lambda: not win._handlers, 600)
    hb.reset()
    row["_n"] = len(compiles.seen)
    arcs = route.route.arcs.tolist() if route.route is not None else []
    arc = int(arcs[len(arcs) // 2]) if arcs else int(np.flatnonzero(net.edge_kind == 0)[0])
    tool = win.tools["edit"]
    assert isinstance(tool, EditTool)
    tool.panel.set_mode("close")
    n0 = len(fields)
    t0 = time.perf_counter()
    tool.toggle_road(arc)
    _wait(lambda: len(fields) > n0 and not win._handlers, 600)
    if ri.state == "ready":
        _wait(lambda: not (ri.state == "building" or ri._job), 600)
        row["closure_index"] = "none" if ri.edit_info is None else ri.edit_info.source
    phase("closure", t0)
    shot = os.environ.get("SIGNPOST_FIRST_SHOT")
    if shot:  # the window as the first closure left it (status bar included)
        win.repaint()
        win.grab().save(shot)
    res = route.result
    row["closure_search"] = "none" if res is None else str(res.extra.get("whatif", "?"))
    row["closure_hash"] = _digest(res)
    edits = tool.scenario.edits if tool.scenario is not None else []
    row["closed_nodes"] = [int(v) for v in (edits[0].nodes or ())] if edits else []
    t0 = time.perf_counter()
    _wait(lambda: _children_done(win), 1800)
    end = time.perf_counter() + 2.0
    _wait(lambda: time.perf_counter() > end, 10)
    phase("rest", t0)
    row["session_s"] = time.perf_counter() - t_start
    row["stall_ms"] = max(row[f"{p}_stall_ms"] for p in PHASES)
    row["compiled"] = len(compiles.seen)
    row["compiled_s"] = sum(s for _, _, s in compiles.seen)
    row["compilations"] = [f"{n} ({t}, {s:.2f} s)" for n, t, s in compiles.seen]
    row.pop("_n", None)
    row["late_where"] = watch.stop()
    hb.stop()
    close_window(win)
    return row


def run_cold(path: str, size: str = "1600x1000", seed: int = 1,
             env: dict[str, str] | None = None, folders: tuple[str, str] | None = None) -> dict:
    """:func:`first_contact` on ``path`` in a child process with empty numba and map caches
    (a fresh install), its row. ``folders``: (numba cache, map cache) to use instead of
    empty ones (a second session after the first)."""
    if folders is None:
        with tempfile.TemporaryDirectory() as numba_dir, tempfile.TemporaryDirectory() as cache:
            return run_cold(path, size, seed, env, (numba_dir, cache))
    root = str(Path(__file__).resolve().parents[2])
    e = dict(os.environ)
    e.update(SIGNPOST_COMPILE_AHEAD="1", SIGNPOST_INDEX_BACKGROUND="1")  # as installed
    e.update(env or {})
    e.update(NUMBA_CACHE_DIR=folders[0], SIGNPOST_CACHE_DIR=folders[1],
             QT_QPA_PLATFORM=e.get("QT_QPA_PLATFORM", "offscreen"))
    e.pop("SIGNPOST_WARM_DIR", None)
    e["PYTHONPATH"] = os.pathsep.join(p for p in (root, e.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, "-m", "app.bench.gui_first", path, size, str(seed)],
                         env=e, capture_output=True, text=True, check=False)
    for line in reversed(out.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError(f"the first-contact window failed:\n{out.stdout[-3000:]}\n"
                       f"{out.stderr[-3000:]}")


COLS = [
    ("map", "map", "{}"), ("nodes", "nodes", "{:,}"),
    ("open_s", "open (s)", "{:.1f}"), ("open_stall_ms", "stall: open", "{:.0f}"),
    ("click_s", "first click (s)", "{:.2f}"), ("click_search", "click searched by", "{}"),
    ("click_stall_ms", "stall: click", "{:.0f}"),
    ("index", "route index", "{}"), ("index_s", "index wait (s)", "{:.1f}"),
    ("index_stall_ms", "stall: index", "{:.0f}"),
    ("closure_s", "first closure (s)", "{:.2f}"), ("closure_search", "closure by", "{}"),
    ("closure_stall_ms", "stall: closure", "{:.0f}"),
    ("rest_stall_ms", "stall: until the children end", "{:.0f}"),
    ("stall_ms", "longest stall (ms)", "{:.0f}"),
    ("compiled", "numba compilations in the window's process", "{}"),
]


def table(rows: list[dict]) -> str:
    out = ["| " + " | ".join(c[1] for c in COLS) + " |", "|" + "|".join("---" for _ in COLS) + "|"]
    for r in rows:
        out.append("| " + " | ".join(f.format(r[k]) if k in r else "—" for k, _, f in COLS)
                   + " |")
    return "\n".join(out)


def run(paths: list[str], size: str, seed: int, repeat: int = 1) -> list[dict]:
    """The cold rows of ``paths`` (each ``repeat`` times), printed as they come."""
    rows = []
    for _ in range(max(1, repeat)):
        for p in paths:
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
            row = {**run_cold(p, size, seed), "load": load}
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(table(rows))
    return rows


FIRST_CONTACT_NODES = 60_000  # the generated map of --first-contact: an index of its own


def run_args(args) -> int:
    """``--first-contact``: :mod:`app.bench.gui_first`'s rows, one process per map."""
    import tempfile

    from maps.cache import write_cache
    from maps.samples import SAMPLE_MAP

    paths = list(args.map or [os.fspath(SAMPLE_MAP)])
    tmp = None
    if not args.no_kanto:
        from maps.generate import generate

        net = generate("kanto", args.kanto_nodes or FIRST_CONTACT_NODES, seed=args.seed)
        fd, tmp = tempfile.mkstemp(suffix="-kanto.spn")
        os.close(fd)
        write_cache(net, tmp)
        paths.append(tmp)
        del net
    try:
        run(paths, args.size, args.seed)
    finally:
        if tmp is not None:
            os.unlink(tmp)
    return 0


def main(argv: list[str]) -> int:
    path = argv[0]
    size = argv[1] if len(argv) > 1 else "1600x1000"
    seed = int(argv[2]) if len(argv) > 2 else 1
    row = first_contact(path, size, seed)
    print(json.dumps(row), flush=True)
    os._exit(0)  # pyqtgraph items at interpreter exit can crash (gui_window.close_window)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
