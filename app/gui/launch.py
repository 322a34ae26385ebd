"""Start the desktop application: ``signpost gui [MAP] [--route FROM TO] [--screenshot FILE]``.

With ``--route`` the two points are routed as clicks would be and the route is printed
as the same JSON object as ``signpost route --json``; with ``--screenshot`` the window is
saved once the route is drawn (or the map, without ``--route``) and the app exits;
``--scenario`` / ``--close`` edit the map once it is shown, as the Edit tool's edits
(listed, closed roads drawn, undoable; the route JSON then has ``edits``, as ``signpost
route --json`` with the same edits):
status 0, or 2 with the message when the map fails to load, a point is off the network
or the destination is unreachable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile


def _refuse(why: str) -> int:
    print(f"signpost gui: error: {why}", file=sys.stderr)
    return 2


def _cannot_start(args: argparse.Namespace) -> str | None:
    """Why the window cannot open here (no display, a broken Qt binding), or None."""
    has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if args.screenshot and not has_display:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # a headless machine
    if sys.platform.startswith("linux") and not has_display and not os.environ.get("QT_QPA_PLATFORM"):
        # Qt would abort with a long plugin message; say what to do instead.
        return ("no display (DISPLAY/WAYLAND_DISPLAY unset): run it in a desktop session, "
                "or render offscreen with --screenshot FILE.png (or QT_QPA_PLATFORM=offscreen)")
    from ._compat import BindingError, check_binding

    try:
        check_binding()
    except BindingError as exc:
        return str(exc)
    return None


def _settings_file(args: argparse.Namespace):
    """(settings file, its scratch folder to remove at the end or None). A batch run
    neither reads nor writes the user's settings: a fresh file, removed at the end, so
    screenshots come out the same on every machine."""
    path = getattr(args, "settings", None)
    if path or not args.screenshot:
        return path, None
    scratch = tempfile.TemporaryDirectory(prefix="signpost-shot-")
    return os.path.join(scratch.name, "settings.ini"), scratch


def _load_edits(win, args: argparse.Namespace) -> bool:
    """The command line's edits (--scenario then --close, parsed by the CLI) as the Edit
    tool's (listed, closed roads drawn, undoable); the route then runs on the edited map,
    its points snapped on it. False when they do not fit the map."""
    edits = getattr(args, "edit_list", None)
    if not edits:
        return True
    if not win.tools["edit"].load_edits(edits, getattr(args, "scenario", None)):
        return False
    win.dock("edit").raise_()
    return True


def _apply_options(win, args: argparse.Namespace) -> None:
    """The command line's strategy, backend, profile, snap distance and size."""
    if args.strategy:
        win.algo_panel.cb_strategy.setCurrentText(args.strategy)
    if args.backend:
        win.algo_panel.cb_backend.setCurrentText(args.backend)
    if args.profile:
        win.algo_panel.cb_profile.blockSignals(True)  # no reload: the map is not open yet
        win.algo_panel.cb_profile.setCurrentText(args.profile)
        win.algo_panel.cb_profile.blockSignals(False)
    win.snap_max_m = float(args.max_snap)
    if args.size:
        w, h = (int(v) for v in args.size.lower().split("x"))
        win.resize(w, h)
        win.default_layout()


def run_gui(args: argparse.Namespace) -> int:
    why = _cannot_start(args)
    if why is not None:
        return _refuse(why)
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow, sample_map_path
    from .settings import Settings
    from .tools.route_tool import RouteTool

    # the window's process runs Qt's threads: no fork() of it for scipy's matrix searches
    # (a forked child may inherit a lock another thread held; gpu_core.multi_source.forked)
    os.environ.setdefault("SIGNPOST_SCIPY_WORKERS", "1")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Signpost")
    app.setOrganizationName("Signpost")
    path = getattr(args, "map_uri", None) or args.map or sample_map_path()
    if not path:
        return _refuse("no MAP given and no sample map is bundled")
    settings_path, scratch = _settings_file(args)
    win = MainWindow(Settings(settings_path), open_sample=False)
    _apply_options(win, args)
    win.show()
    state = {"rc": 0, "printed": False}
    batch = bool(args.screenshot)

    def fail(msg: str) -> None:
        print(f"signpost gui: error: {msg}", file=sys.stderr)
        if batch:
            state["rc"] = 2
            win.close()
            app.exit(2)

    def shoot() -> None:
        try:
            from app.gui.export import view_image

            view_image(win, args.screenshot)  # atomic, as every file Signpost writes
        except Exception as exc:  # report, do not hang
            fail(f"could not write {args.screenshot}: {exc}")
            return
        if not os.path.exists(args.screenshot):
            fail(f"could not write {args.screenshot}")
            return
        win.close()
        app.exit(state["rc"])

    def route_shown(_route) -> None:
        if not state["printed"]:
            state["printed"] = True
            print(json.dumps(win.tool(RouteTool).route_json()), flush=True)
            if batch:
                QTimer.singleShot(400, shoot)  # let the charts and layouts settle

    def go() -> None:
        if state.get("went"):
            return
        state["went"] = True
        if not _load_edits(win, args):
            fail(win.last_error or "the edits do not fit the map")
            return
        if args.route:
            win.tool(RouteTool).route_between(args.route[0], args.route[1])  # failures: routeFailed
        elif batch:
            QTimer.singleShot(400, shoot)

    def loaded(_path: str) -> None:
        # Route once the after-load job (kernel warm-up, snapping index) is done, so the
        # search time shown is the search, not numba compiling.
        win.loader.finished_job.connect(lambda *_: go())
        win.loader.failed_job.connect(lambda *_: go())
        win.loader.cancelled_job.connect(lambda *_: go())
        if not win.loader.busy():
            go()

    win.mapLoaded.connect(loaded)
    win.routeShown.connect(route_shown)
    win.routeFailed.connect(fail)
    win.mapLoadFailed.connect(lambda msg: fail(f"cannot open {path}: {msg}"))
    if batch:
        win.compute.failed_job.connect(lambda _j, _k, exc: fail(str(exc)))
    from app.jobs.maps import gis_options

    win.show_map(path, args.profile or None, **gis_options(args))
    rc = app.exec()
    win.shutdown_workers()
    win.settings.sync()
    dispose(win)
    if scratch is not None:
        scratch.cleanup()
    return int(state["rc"] or rc)


def dispose(win) -> None:
    """Destroy the window now, in order, with the workers joined: left to the interpreter's
    finalisation, PySide and pyqtgraph objects are freed in any order, which can crash the
    process after a successful run (exit status 139 instead of 0)."""
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    win.close()
    win.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()
