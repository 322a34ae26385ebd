"""``signpost bench gui``: the GUI side of click-to-route, per map, offscreen.
(Over 500 lines: one benchmark's offscreen window, its timers and its table, kept together.)

With the search result computed beforehand (one CPU search per map; the GPU search time
is measured by ``signpost bench sssp``), it times what the GUI adds to a click: snapping
the click to the nearest road (``maps.points.snap``), reading the route from the predecessor
array, colouring the distance field (bands of arcs + building their paths), and a full
redraw of the map (roads + field + route rendered into a window-sized image). On the
sample map it also times the whole click-to-route through the real window on the CPU:
from the click to the route drawn (search in the worker thread, field, route).
Prepare times (drawing geometry, snapping index, road layer) are per map, once.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from app.bench import MAP_COLS
from app.bench.gui_redraw import measure_redraw, rendered
from app.bench.gui_window import qapp as _qapp

if TYPE_CHECKING:
    from maps.model.network import RoadNetwork

DOC = Path(__file__).resolve().parents[2] / "docs" / "perf" / "gui.md"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", action="append", default=None, metavar="M",
                   help="map file to measure (repeatable); default: the sample map and kanto")
    p.add_argument("--no-kanto", action="store_true", help="leave the generated 1.43M-node map out")
    p.add_argument("--kanto-nodes", type=int, default=None, help="nodes of the generated Kanto map")
    p.add_argument("--repeat", type=int, default=5, help="repetitions per measurement (median)")
    p.add_argument("--clicks", type=int, default=5, help="whole click-to-route runs on the sample map")
    p.add_argument("--size", default="1600x1000", help="window / image size for the redraw, WxH")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--drag-s", type=float, default=2.0, help="seconds the source is dragged in the window")
    p.add_argument("--drag-frames", type=int, default=8,
                   help="Qt-free drag frames (search + colouring) per map and backend")
    p.add_argument("--no-index", dest="index", action="store_false",
                   help="click and drag without the route index (the plain search)")
    p.add_argument("--no-window", action="store_true",
                   help="leave the window measurements (stalls, click -> field, drag) out")
    p.add_argument("--drag-only", action="store_true",
                   help="only the Qt-free drag frames (search + colouring) per map and backend: "
                        "what runs on a GPU machine without Qt")
    p.add_argument("--first-contact", action="store_true",
                   help="a fresh install's first session per map (empty numba and map caches, "
                        "a process each): the window's longest stalls and its numba "
                        "compilations from opening through the first click to the first "
                        "closed road; maps: --map (default the sample map) and a generated "
                        "Kanto-like map of --kanto-nodes (default 60,000) unless --no-kanto")
    p.add_argument("--write-doc", action="store_true", help=f"write the table to {DOC}")


def _median(fn, repeat: int) -> tuple[float, object]:
    ts, out = [], None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3, out


def measure_map(net, label: str, args) -> dict:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QImage, QPainter

    from app.gui.geometry import build_geometry
    from app.gui.map_canvas import MapCanvas
    from app.jobs.maps import make_snapper
    from app.jobs.route import read_route
    from gpu_core.sssp import sssp
    from maps.errors import UnreachableError

    w, h = (int(v) for v in args.size.lower().split("x"))
    rng = np.random.default_rng(args.seed)
    row: dict = {"map": label, "nodes": net.num_nodes, "arcs": net.num_arcs}
    t0 = time.perf_counter()
    geo = build_geometry(net)
    row["prep_geometry_ms"] = (time.perf_counter() - t0) * 1e3
    t0 = time.perf_counter()
    snapper = make_snapper(net)
    row["prep_snapper_ms"] = (time.perf_counter() - t0) * 1e3

    # The search, beforehand (its time is not part of the GUI side); kernels compiled first.
    from gpu_core.graph import CSRGraph

    sssp(CSRGraph.from_edges(3, [0, 1], [1, 2], [1, 1]), 0, strategy="auto", backend="cpu")
    src = int(rng.integers(0, net.num_nodes))
    t0 = time.perf_counter()
    res = sssp(net, src, strategy="auto", backend="cpu")
    row["cpu_search_ms"] = (time.perf_counter() - t0) * 1e3
    reached = np.nonzero(res.dist >= 0)[0]

    # Snap: random clicks within 30 m of random nodes.
    pts = rng.integers(0, net.num_nodes, size=args.repeat)
    offs = rng.uniform(-30, 30, size=(args.repeat, 2))
    ts = []
    for i, o in zip(pts.tolist(), offs, strict=False):
        t0 = time.perf_counter()
        if snapper is not None:
            snapper.snap(float(net.x[i] + o[0]), float(net.y[i] + o[1]), max_distance_m=1000)
        ts.append(time.perf_counter() - t0)
    row["snap_ms"] = statistics.median(ts) * 1e3

    # Route from pred: to random reached targets (a long route on a big map).
    targets = rng.choice(reached, size=args.repeat)
    ts, hops = [], []
    for t in targets.tolist():
        t0 = time.perf_counter()
        try:
            r = read_route(net, res, src, int(t))
            hops.append(r.num_nodes)
        except UnreachableError:
            pass
        ts.append(time.perf_counter() - t0)
    row["route_ms"] = statistics.median(ts) * 1e3
    row["route_nodes"] = int(statistics.median(hops)) if hops else 0

    canvas = MapCanvas()
    canvas.resize(w, h)
    t0 = time.perf_counter()
    canvas.set_network(net, geo)
    row["prep_roads_ms"] = (time.perf_counter() - t0) * 1e3
    canvas.show()
    QCoreApplication.processEvents()
    rendered(canvas)  # raster maps: the first render lands from the raster worker
    # big raster maps: the overview far views are resampled from (the window makes it on the
    # raster worker a second after the first view lands; here now, timed)
    row["prep_overview"] = "-"
    t0 = time.perf_counter()
    if canvas.raster_mode and canvas.raster.build_overview():
        rendered(canvas)
        row["prep_overview"] = f"{(time.perf_counter() - t0) * 1e3:.0f}"

    row["mode"] = "raster" if canvas.raster_mode else "vector"
    # Colour the field as the window does: bands of paths (vector) or arc colours + a
    # gather over the pixel→arc image (raster).
    row["field_ms"], _ = _median(lambda: canvas.show_field(res.dist, "turbo", net.unit), args.repeat)
    r = read_route(net, res, src, int(targets[0]))
    row["route_draw_ms"], _ = _median(lambda: canvas.show_route(r.xs, r.ys), args.repeat)
    row["edit_ms"] = measure_edit(net, geo, canvas, res, r, args.repeat)

    # Full redraw: (raster maps) rasterise the view again, then paint the whole scene
    # (roads, field, route, legends) into a window-sized image.
    img = QImage(w, h, QImage.Format.Format_ARGB32_Premultiplied)

    def paint() -> None:
        p = QPainter(img)
        canvas.render(p)
        p.end()

    row["paint_ms"], _ = _median(paint, args.repeat)
    row.update(measure_redraw(canvas, paint, args.repeat))
    canvas.close()
    canvas.deleteLater()
    QCoreApplication.processEvents()
    # What a click adds to the search: snap, route, field, route layer, one frame painted.
    row["gui_side_ms"] = row["snap_ms"] + row["route_ms"] + row["field_ms"] + row["route_draw_ms"] + row["paint_ms"]
    # What an edit adds to its repair: snap the click, redraw field + closed roads + route,
    # one frame painted.
    row["edit_side_ms"] = row["snap_ms"] + row["edit_ms"] + row["paint_ms"]
    return row


def measure_edit(net, geo, canvas, res, route, repeat: int) -> float:
    """The GUI side of a what-if edit: close the road in the middle of ``route`` (both
    directions), the search redone beforehand (repair is timed by ``signpost bench
    edits``), then time what the window redraws: the field, the closed-road layer, the
    route read from the new predecessors and drawn. Edit and undo alternate, as a user
    trying a closure would. Returns the median in ms."""
    from app.gui.edit_panel import EditLayers
    from app.jobs.route import read_route
    from gpu_core.dynamic import MutableGraph
    from gpu_core.sssp import sssp
    from maps.errors import UnreachableError

    mid = int(route.arcs[len(route.arcs) // 2]) if len(route.arcs) else 0
    t, h = int(net.arc_sources()[mid]), int(net.indices[mid])
    src = net.arc_sources()
    closed = np.nonzero(((src == t) & (net.indices == h)) | ((src == h) & (net.indices == t)))[0]
    mg = MutableGraph(net, backend="cpu")
    mg.apply(mg.batch().disable(closed))
    after = sssp(mg, route.source, strategy="auto", backend="cpu")
    layers = EditLayers(canvas)
    states = [(after, closed), (res, closed[:0])]
    k = [0]

    def redraw() -> None:
        result, arcs = states[k[0] % 2]
        k[0] += 1
        canvas.show_field(result.dist, "turbo", net.unit)
        layers.show_closed(net, geo, arcs)
        try:
            r = read_route(net, result, route.source, route.target)
            canvas.show_route(r.xs, r.ys)
        except UnreachableError:  # the closure cut the target off: no route to draw
            canvas.show_route(None)

    redraw()  # the closed-road lookup is built once per map
    ms, _ = _median(redraw, max(2, repeat) // 2 * 2)
    layers.map_changed()
    return ms


def measure_click(path: str, args) -> dict:
    """The whole click-to-route through the real window (CPU backend), median of clicks."""
    import tempfile

    from PySide6.QtCore import QEventLoop, QTimer

    from app.gui.main_window import MainWindow
    from app.gui.settings import Settings

    from .gui_window import close_window

    os.environ["SIGNPOST_NO_DIALOGS"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        win = MainWindow(Settings(os.path.join(tmp, "s.ini")), open_sample=False)
        win.resize(*(int(v) for v in args.size.lower().split("x")))
        win.algo_panel.cb_backend.setCurrentText("cpu")
        win.show()

        def wait(signal, timeout_s: float = 120.0) -> None:
            loop = QEventLoop()
            signal.connect(loop.quit)
            QTimer.singleShot(int(timeout_s * 1000), loop.quit)
            loop.exec()
            signal.disconnect(loop.quit)

        win.show_map(path)
        wait(win.mapLoaded)
        while win.loader.busy():  # the after-load warm-up (kernels, snapping index), as
            wait(win.loader.finished_job, 5.0)  # `signpost gui --route` waits for it too
        ri = win.route_index  # and the route index the window gets ready (big maps), as a
        while ri.loading():  # user would: until then clicks run the plain search
            wait(ri.runner.finished_job, 5.0)
        net = win.net
        assert net is not None  # opened above
        rng = np.random.default_rng(args.seed + 1)
        road = np.unique(net.arc_sources()[net.edge_kind == 0])
        times = []
        for k in range(args.clicks + 1):  # the first click compiles the CPU kernels: dropped
            a, b = rng.choice(road, size=2, replace=False).tolist()
            win.canvas.click_at(float(net.x[b]), float(net.y[b]), "right")  # destination first
            t0 = time.perf_counter()
            win.canvas.click_at(float(net.x[a]), float(net.y[a]), "left")
            wait(win.searchFinished)
            win.repaint()  # the frame that shows the field and the route
            if k:
                times.append(time.perf_counter() - t0)
        close_window(win)
    return {"map": os.path.basename(path), "click_to_route_ms": statistics.median(times) * 1e3,
            "click_max_ms": max(times) * 1e3}


COLS = [
    *MAP_COLS,
    ("prep_geometry_ms", "prep geometry", "{:.0f}"),
    ("prep_snapper_ms", "prep snap index", "{:.0f}"),
    ("prep_roads_ms", "prep road layer", "{:.0f}"),
    ("prep_overview", "prep overview", "{}"),
    ("cpu_search_ms", "CPU search", "{:.1f}"),
    ("snap_ms", "snap", "{:.2f}"),
    ("route_ms", "route from pred", "{:.2f}"),
    ("route_nodes", "route nodes", "{:,}"),
    ("mode", "drawing", "{}"),
    ("field_ms", "colour field", "{:.1f}"),
    ("route_draw_ms", "draw route", "{:.2f}"),
    ("edit_ms", "edit: redraw", "{:.1f}"),
    ("paint_ms", "paint frame", "{:.1f}"),
    ("redraw_ms", "full redraw", "{:.1f}"),
    ("pan_ms", "pan redraw", "{:.1f}"),
    ("zoom_back_ms", "zoom back", "{:.1f}"),
    ("redraw_gui_ms", "redraw: GUI thread", "{:.1f}"),
    ("gui_side_ms", "GUI side per click", "{:.1f}"),
    ("edit_side_ms", "GUI side per edit", "{:.1f}"),
]


def table(rows: list[dict]) -> str:
    head = "| " + " | ".join(c[1] for c in COLS) + " |"
    sep = "|" + "|".join("---" for _ in COLS) + "|"
    body = ["| " + " | ".join(fmt.format(r[k]) for k, _, fmt in COLS) + " |" for r in rows]
    return "\n".join([head, sep, *body])


def run(args: argparse.Namespace) -> int:
    if args.drag_only:
        return run_drags(args)
    if args.first_contact:
        from .gui_first import run_args

        return run_args(args)
    _qapp()
    from app.gui.main_window import sample_map_path

    sample = sample_map_path()
    paths = args.map or ([sample] if sample else [])
    maps = _maps(args, sample)
    from gpu_core.backend import resolve_backend

    from .gui_window import drag_frames, measure_window

    rows, drags, windows, states = [], [], [], []
    backends = ["cpu"] + (["cupy"] if resolve_backend("auto") == "cupy" else [])
    tmp_maps = []
    for label, make in maps:
        net = make()
        print(f"measuring {label}: {net.num_nodes:,} nodes, {net.num_arcs:,} arcs", flush=True)
        rows.append(measure_map(net, label, args))
        if not args.no_window:  # polygons and exports in the window (issue 42)
            from .gui_states import measure_states

            states += measure_states(net, label)
        for be in backends:
            drags.append({"map": label, **drag_frames(net, be, args.drag_frames, seed=args.seed,
                                                      index=args.index)})
        if not args.no_window and label == "kanto (generated)":  # the window opens a file
            import tempfile

            from maps.cache import write_cache

            fd, spn = tempfile.mkstemp(suffix="-kanto.spn")
            os.close(fd)
            write_cache(net, spn)
            tmp_maps.append(spn)
        del net
    clicks = [measure_click(p, args) for p in paths]
    if not args.no_window:
        for p in [*paths, *tmp_maps]:
            print(f"window: {os.path.basename(p)}", flush=True)
            label = "kanto (generated)" if p in tmp_maps else os.path.basename(p)
            windows.append({**measure_window(p, args), "map": label})
    for p in tmp_maps:
        os.unlink(p)
    from .gui_states import states_table

    text = table(rows) + "\n\n" + window_table(windows, drags)
    if states:
        text += "\n\n" + states_table(states)
    print(text)
    for c in clicks:
        print(f"click-to-route on {c['map']} (CPU, whole window): median {c['click_to_route_ms']:.0f} ms, "
              f"max {c['click_max_ms']:.0f} ms over {args.clicks} clicks")
    goals = goal_table(rows, windows)
    print(goals)
    if args.write_doc:
        write_doc(rows, clicks, args, window_table(windows, drags) + "\n" + goals
                  + ("\n\n## Heavy states (issue 42)\n\n" + states_table(states) if states else ""))
    return 0


def _maps(args: argparse.Namespace,
          sample: str | None) -> list[tuple[str, Callable[[], RoadNetwork]]]:
    """(label, loader) of each map the run measures: the ``--map`` files (else the sample
    map), then the generated Kanto-sized map unless ``--no-kanto``."""
    from maps.load import load_map

    maps: list[tuple[str, Callable[[], RoadNetwork]]] = []
    for p in args.map or ([sample] if sample else []):
        maps.append((os.path.basename(p), functools.partial(load_map, p)))
    if not args.no_kanto:
        from maps.generate import generate

        maps.append(("kanto (generated)", lambda: generate("kanto", args.kanto_nodes, seed=args.seed)))
    return maps


def run_drags(args: argparse.Namespace) -> int:
    """``--drag-only``: the Qt-free drag frames of every map on every usable backend (the
    GPU search and the colouring apart and together), without importing Qt."""
    from gpu_core.backend import describe_backend, resolve_backend

    from .gui_window import drag_frames

    sample: Path | None
    try:
        from maps.samples import SAMPLE_MAP as sample  # Qt-free (app.gui.chrome is not)
    except ImportError:
        sample = None
    backends = ["cpu"] + (["cupy"] if resolve_backend("auto") == "cupy" else [])
    drags = []
    have = os.fspath(sample) if sample is not None and os.path.exists(sample) else None
    for label, make in _maps(args, have):
        net = make()
        print(f"measuring {label}: {net.num_nodes:,} nodes, {net.num_arcs:,} arcs", flush=True)
        for be in backends:
            drags.append({"map": label, **drag_frames(net, be, args.drag_frames, seed=args.seed,
                                                      index=args.index)})
        del net
    print(f"drag frames ({describe_backend('auto')}, {os.cpu_count()} cores), median of "
          f"{args.drag_frames}:")
    print(window_table([], drags))
    return 0


def goal_table(rows: list[dict], windows: list[dict]) -> str:
    """Issue 27's measured goals, met or not, per map of this run (CPU)."""
    checks = [("stall_open_ms", "no GUI stall > 50 ms while opening", 50, "ms", False),
              ("open_drawn_s", "map drawn <= 2 s", 2, "s", False),
              ("open_after_read_s", "clicks accepted <= 3 s after the file is read", 3, "s", False),
              ("click_field_ms", "click -> field <= 300 ms", 300, "ms", False),
              ("stall_click_ms", "no GUI stall > 50 ms per click", 50, "ms", False),
              ("drag_fps", "dragging: >= 5 fields / s", 5, "/s", True),
              ("stall_drag_ms", "no GUI stall > 50 ms while dragging", 50, "ms", False),
              ("redraw_ms", "full redraw <= 30 ms", 30, "ms", False)]
    out = ["| map | goal | measured | met |", "|---|---|---|---|"]
    for i, w in enumerate(windows):
        r = {**(rows[i] if i < len(rows) else {}), **w}
        for key, what, lim, unit, at_least in checks:
            if key in r:
                v = r[key]
                ok = v >= lim if at_least else v <= lim
                out.append(f"| {w['map']} | {what} | {v:.3g} {unit} | {'yes' if ok else '**no**'} |")
    return "\n".join(out) + "\n"


WINDOW_COLS = [
    ("map", "map", "{}"),
    ("stall_open_ms", "longest stall: open", "{:.0f}"),
    ("open_drawn_s", "open: drawn (s)", "{:.2f}"),
    ("open_clicks_s", "open: clicks accepted (s)", "{:.2f}"),
    ("open_read_s", "open: read (s)", "{:.2f}"),
    ("open_prep_s", "open: geometry + drawing (s)", "{:.2f}"),
    ("open_snap_s", "open: snap index (s)", "{:.2f}"),
    ("index", "route index", "{}"),
    ("index_ready_s", "index ready (s)", "{:.1f}"),
    ("stall_index_ms", "longest stall: index build", "{:.0f}"),
    ("search", "click search", "{}"),
    ("click_search_ms", "click: search", "{:.0f}"),
    ("click_field_ms", "click -> field", "{:.0f}"),
    ("stall_click_ms", "longest stall: click", "{:.0f}"),
    ("drag_fps", "drag: fields / s", "{:.1f}"),
    ("stall_drag_ms", "longest stall: drag", "{:.0f}"),
]
DRAG_COLS = [
    ("map", "map", "{}"), ("backend", "backend", "{}"), ("index", "searched", "{}"),
    ("search_ms", "search", "{:.1f}"),
    ("colour_ms", "colour view", "{:.1f}"), ("frame_ms", "frame", "{:.1f}"),
    ("fps", "frames / s", "{:.1f}"),
]


def window_table(windows: list[dict], drags: list[dict]) -> str:
    """The window rows (stalls, click -> field, drag) and the Qt-free drag frames."""
    out = []
    for rows, cols in ((windows, WINDOW_COLS), (drags, DRAG_COLS)):
        if rows:
            out += ["| " + " | ".join(c[1] for c in cols) + " |",
                    "|" + "|".join("---" for _ in cols) + "|",
                    *["| " + " | ".join(f.format(r[k]) if k in r else "—" for k, _, f in cols)
                      + " |" for r in rows],
                    ""]
    return "\n".join(out)


def write_doc(rows, clicks, args, window_text: str = "") -> None:
    from gpu_core.backend import describe_backend

    cpu = platform.processor() or platform.machine()
    lines = [
        "# GUI side of click-to-route",
        "",
        f"Command: `signpost bench gui{_map_args(args)} --write-doc --repeat {args.repeat} "
        f"--clicks {args.clicks} --drag-frames {args.drag_frames}` (image {args.size}, offscreen Qt).",
        f"Machine: {os.cpu_count()} cores ({cpu}), no GPU ({describe_backend('auto')}), "
        f"Python {platform.python_version()}; load average during the run "
        f"{os.getloadavg()[0]:.1f} (other work shared the 2 cores: expect noise).",
        "",
        "All times in milliseconds (median). *prep* columns happen once per map (in the loader "
        "thread; *prep overview*, big raster maps only, on the raster worker after the first "
        "view). Per click, on top of the search: *snap* the click to the nearest road, read "
        "the *route from pred*ecessors, *colour field* (vector maps: arcs split into colour "
        "bands, one path per band; raster maps: one colour per arc, then a gather over the "
        "pixel→arc image), *draw route*, *paint frame* (the whole scene painted into a "
        "window-sized image). *GUI side per click* is their sum. *full redraw* is a zoom in "
        "to a new level (x1.25) until the new view is on screen: raster maps make it on the "
        "raster worker (`app/gui/raster_view.py`; a view this far out is resampled from the "
        "map's overview, `app/gui/overview.py`, nearer ones rasterised whole), colour it and "
        "paint the frame; *pan redraw* the same for a pan of a tenth of the view (the previous "
        "pixel→arc image is shifted and only the uncovered strips are rasterised, or resampled "
        "in a far view); *zoom "
        "back* a zoom out to the level before (its image is kept: shifted, not rasterised "
        "again); *redraw: GUI thread* is what the GUI thread itself spends on each of these "
        "steps (the view change and a frame of the previous image moved and scaled: the "
        "window never waits for the rasteriser).",
        "",
        "What-if editing (issue 15): *edit: redraw* is what the window redraws after an edit "
        "once its search is repaired (the repair itself is timed by `signpost bench edits`): "
        "the distance field of the new result, the closed-road layer (dashed red over the "
        "road) and the route read from the new predecessors and drawn; the road in the middle "
        "of a long route is closed and reopened in turn (edit, undo). *GUI side per edit* = "
        "snap the click + edit: redraw + paint frame. Goal: the redraw of the changed field "
        "≤ 30 ms on the 1.43M map.",
        "",
        table(rows),
        "",
    ]
    for c in clicks:
        lines.append(f"Whole click-to-route on {c['map']} through the window, CPU backend (search in "
                     f"the worker, field, route, repaint): median **{c['click_to_route_ms']:.0f} ms**, "
                     f"max {c['click_max_ms']:.0f} ms over {args.clicks} clicks (first click, which "
                     "compiles the numba kernels, not counted).")
    lines += [
        "",
        "Notes:",
        "",
        "- *drawing*: maps with fewer than 250,000 drawn segments are drawn as vector paths "
        "(one path item per road class, cosmetic pens); bigger maps switch to the raster level "
        "of detail (`app/gui/raster.py`: a numba kernel writes which arc shows in each pixel "
        "once per pan/zoom, on the raster worker and numba's threads; a new distance field is "
        "one pass over the pixels, and its colour per arc is kept for the next pans and zooms; "
        "views from the whole map in to about 2x are resampled from an overview of the map "
        "made once, `app/gui/overview.py`).",
        "- *CPU search* is one `gpu_core.sssp(strategy='auto', backend='cpu')` after a warm-up; "
        "the GPU search time of the same map is in `docs/perf/sssp_gpu.md` (measured there on "
        "an H100/H200): the goal is GUI side per click + GPU search < 50 ms on the 1.43M map.",
        "- *prep snap index* is the window's snapping index (`app.jobs.snap_index.GridSnapper`: "
        "road segments in a uniform grid; it was a shapely STRtree until issue 27); it runs "
        "once per map in the loader thread.",
        "",
        "## The window at scale (issue 27)",
        "",
        "Through the real window (CPU backend, offscreen): a 10 ms heartbeat QTimer on the GUI "
        "thread gives the *longest stall* (the longest gap between ticks less the period) while "
        "the map opens (load, drawing, the after-load warm-up and snapping index), over the "
        "clicks, and while the source marker is dragged along a route at 60 Hz for "
        f"{args.drag_s:g} s. *open: drawn* = from `show_map` to the map shown; *clicks "
        "accepted* = to the snapping index ready; *read*, *geometry + drawing* and *snap "
        "index* are the loader thread's steps (the goal counts clicks accepted from the end "
        "of *read*). *click -> field* = a left click to the "
        "new field painted (median). *drag: fields / s* = distance fields drawn per second "
        "while dragging (one search in flight, the latest position waits). Unless "
        "`--no-index`, the route index is made ready first as the app does after a map "
        "opens (Search → Build route index: built, or loaded from the cache, on its own "
        "worker): *index ready* is from asking to the status bar's \"route index ready\", "
        "with the longest stall meanwhile; *click search* says how the clicks searched "
        "(phast: through the index) and *click: search* their median search time.",
        "",
        "The second table is the drag frame without Qt (`app.bench.gui_window.drag_frames`): "
        "one search from a source walking along the map plus colouring the pixels of a "
        f"{args.size} view of the whole map (raster level of detail), median of "
        f"{args.drag_frames} frames. On the GPU machine (no Qt there) this is the part that "
        "runs: the GPU search and the colouring apart and together; the window rows are "
        "measured on a machine with Qt.",
        "",
        window_text,
    ]
    kept = _kept_sections()
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text("\n".join(lines) + "\n" + (f"\n{kept}" if kept else ""), encoding="utf-8")
    print(f"wrote {DOC}")


def _map_args(args) -> str:
    """The map options of this run, as typed."""
    out = "".join(f" --map {m}" for m in (args.map or []))
    out += " --no-kanto" if args.no_kanto else ""
    return out + ("" if getattr(args, "index", True) else " --no-index")


def _kept_sections() -> str:
    """The doc's written-by-hand sections (from its first ``###`` heading on: runs and
    findings beside the generated tables), kept when the tables are written again."""
    if not DOC.exists():
        return ""
    text = DOC.read_text(encoding="utf-8")
    at = text.find("\n### ")
    return text[at + 1:] if at >= 0 else ""
