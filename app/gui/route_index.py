"""The route (search) index in the window (issues 26 + 27): built in the background after
a map opens, on its own worker thread, so clicks keep working on the compute worker with
the plain search meanwhile (the build and its numba compilations run in a child process,
``app.jobs.index_ahead``; this thread then loads the cached index, issue 41); then every click and drag searches through it
(``app.jobs.sssp``: strategy auto finds it in ``app.jobs.index``'s memo; the result says
``extra["index"] == "phast"``).

The status bar shows the build's progress with an ETA and a small button that cancels it
(the window's Cancel and Esc stop searches, not this). Search → Build route index builds
it on any map; "Build route index automatically" (on by default) builds it when a map of
at least ``AUTO_MIN_NODES`` nodes opens and searches run on the CPU (graphs that are not
road-shaped get none).

What-if edits (closures, reopenings, new weights) re-customize the map's index over its
topology for the edited graph (``app.jobs.edit_index``), also here; until that is done
the edited map searches without an index. Undo / redo reuse the indexes of recent edit
states. The edited graph is taken in the GUI thread once its search is drawn (its
compaction is then cached: ``MutableGraph.cached_graph``), so neither thread compacts it
here and this worker never reads the mutable graph itself.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QToolButton

from .workers import Job, JobContext, JobRunner

AUTO_MIN_NODES = 50_000  # smaller maps search fast enough without an index
SETTING = "index/auto"


def eta_text(elapsed_s: float, fraction: float) -> str:
    """"ETA 1:05" from the time spent and the fraction done ("" until it means something)."""
    if fraction < 0.02 or elapsed_s < 1.0:
        return ""
    left = max(elapsed_s * (1.0 - fraction) / fraction, 0.0)
    m, s = divmod(int(round(left)), 60)
    return f"ETA {m}:{s:02d}"


STALL_S = 2.0  # seconds without a new fraction before the index bar moves on its own

class RouteIndex(QObject):
    """The window's route index: state, background worker, status-bar widgets.
    ``state``: none, building, ready, cancelled, failed or unavailable (no index for this
    graph: not road-shaped, negative weights)."""

    changed = Signal(str)  # the new state
    editIndexed = Signal(object)  # IndexInfo of an edited map's index (or its reason)

    def __init__(self, win):
        super().__init__(win)
        self.win = win
        self.runner = JobRunner("signpost-index", win)
        self.runner.finished_job.connect(self._finished)
        self.runner.failed_job.connect(self._failed)
        self.runner.cancelled_job.connect(self._cancelled)
        self.runner.progress.connect(self._progress)
        self.state = "none"
        self.info = None  # IndexInfo of the map's index
        self.edit_info = None  # IndexInfo of the edited map's, or None
        self._job = 0
        self._kind = ""  # "build" or "edit": what the job in flight does
        self._t0 = 0.0
        self._hold = None  # (graph, (Hierarchy, IndexInfo)): the map's index, kept alive
        self._deferred = False  # an automatic build waits for the snapping index
        self._edit_graph = None  # the edited graph being (or last) indexed
        self._edit_pending = False
        self._auto = False  # the build in flight was started automatically
        self.label = QLabel("")
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(120)
        self.bar.setRange(0, 1000)
        # a step with no fraction for STALL_S (the first 10 s, the last 20 %: issue 42)
        # turns the bar into a moving busy indicator instead of sitting at one value
        self._last_frac_t = 0.0
        self._stall = QTimer(self)
        self._stall.setInterval(500)
        self._stall.timeout.connect(self._check_stall)
        self.btn = QToolButton()
        self.btn.setText("✕")
        self.btn.setToolTip("Stop building the route index (clicks keep working without it)")
        self.btn.clicked.connect(self.cancel)
        sb = win.statusBar()
        for w in (self.label, self.bar, self.btn):
            sb.addPermanentWidget(w)
        self._show_busy(False)
        self.label.setVisible(False)
        # drawn results are heard only while there is an index to keep or re-customize
        # for edits (building or ready: _listen), not at every click on a map without one
        self._listening = False

    # ---- settings -----------------------------------------------------------------------
    def auto(self) -> bool:
        """Whether maps of ``AUTO_MIN_NODES`` nodes or more get their index on opening."""
        return str(self.win.settings.q.value(SETTING, "true")).lower() in ("true", "1")

    def set_auto(self, on: bool) -> None:
        self.win.settings.q.setValue(SETTING, "true" if on else "false")

    # ---- map and build ------------------------------------------------------------------
    def map_changed(self, net) -> None:
        """A new map: forget the old index (a build in flight is cancelled); build this
        one's when automatic and the map is big enough."""
        self.runner.cancel()
        self._job = 0
        self._hold = self.info = self.edit_info = self._edit_graph = None
        self._edit_pending = False
        self._set("none", "")
        self._deferred = False
        if self.auto() and net is not None and net.num_nodes >= AUTO_MIN_NODES:
            if self.win._snapper_pending:
                # clicks first: loading or building the index competes for the same cores
                # (2 here) with the snapping index, and clicks waited 2-3 s longer for it
                self._deferred = True
            else:
                self.build(auto=True)
        self._tell_session()

    def loading(self) -> bool:
        """Whether the map's index is being loaded or built, or waits to be."""
        return self._deferred or (self.state == "building" and self._kind == "build")

    def _tell_session(self) -> None:
        """The session's index policy for clicks (``Session.index_policy``), set when this
        state changes rather than asked per click: ``off`` while :meth:`loading` (under
        ``auto`` a search would load the same index from the cache itself first, seconds
        on the 1.43M map, before the search), else ``auto``."""
        self.win.session.index_policy = "off" if self.loading() else "auto"

    def clicks_ready(self) -> None:
        """The window's snapping index is there: an automatic build waiting for it starts."""
        if self._deferred:
            self._deferred = False
            self.build(auto=True)
            self._tell_session()

    def build(self, auto: bool = False) -> int:
        """Load or build the map's search index in the background; returns the job id
        (0 when there is nothing to do)."""
        win = self.win
        graph = win.graph
        if graph is None:
            win.status("Open a map first", 5000)
            return 0
        if self.state == "ready" or (self.state == "building" and self._kind == "build"):
            return 0
        backend = win.algo_panel.backend

        def fn(ctx: JobContext):
            from app.jobs import index_ahead
            from app.jobs.index import known_key_index, prepare_search_index
            from gpu_core.errors import CancelledError

            # built and compiled in a child process: numba compiles holding the GIL, and
            # this thread compiling stalled the window's (issue 41); then loaded here
            if index_ahead.needed(graph):
                index_ahead.build_in_child(graph, cancel=ctx.cancelled, progress=ctx.progress)
                if ctx.cancelled():
                    raise CancelledError("route index build cancelled")
            info = prepare_search_index(graph, backend=backend, progress=ctx.progress,
                                        cancel=ctx.cancelled)
            return graph, info, known_key_index(graph)

        fn.__name__ = "route-index"
        self._submit(fn, "build")
        self._auto = auto
        self._set("building", "route index: starting")
        return self._job

    def _warm_billboards(self, graph) -> None:
        """On a map where the billboards sample on the CPU, their once-per-map set-up and
        kernel loads on this worker now (``billboards.warm_sampled``, 1-3 s), not in the
        first click's wait for its first answer (issue 43). Not this worker's job of
        record (its end is not awaited; an edit's re-index supersedes it)."""
        from app.jobs import billboards

        if not billboards.sampled_by_default(graph, self.win.algo_panel.backend):
            return

        def fn(ctx: JobContext):
            return billboards.warm_sampled(graph)

        fn.__name__ = "billboards-warm-up"
        self.runner.submit(Job(fn, kind="warm"))

    def cancel(self) -> None:
        """Stop the build (or an edit's customization) in flight."""
        self.runner.cancel()

    def shutdown(self) -> bool:
        return self.runner.shutdown()

    def _submit(self, fn, kind: str) -> None:
        self._kind = kind
        self._tell_session()
        self._t0 = time.perf_counter()
        self._job = self.runner.submit(Job(fn, kind=kind))
        self.bar.setRange(0, 0)  # moving until the first fraction arrives
        self._last_frac_t = self._t0
        self._stall.start()
        self._show_busy(True)

    # ---- edits ----------------------------------------------------------------------------
    def _field_changed(self) -> None:
        """A search is drawn: on an edited map, index its graph unless done; back on the
        unedited map, make sure the map's own index is the one found."""
        sc = self.win.scenario
        if sc is None or not sc.edits:
            self._edit_graph = None
            if self._kind == "edit":
                self.runner.cancel()
            if self._hold is not None:
                from app.jobs.index import known_key_index, remember_key_index

                graph, hit = self._hold
                if known_key_index(graph) is None or known_key_index(graph)[0] is None:
                    remember_key_index(graph, hit)
            return
        if self.state == "building" and self._kind == "build":
            self._edit_pending = True  # after the map's index
            return
        if self._hold is None:
            return  # no index of the map: nothing to re-customize
        self.reindex_edits()

    def reindex_edits(self) -> int:
        """Re-customize the index for the edited map's graph now (a no-op when that graph
        already has it); returns the job id or 0."""
        from app.jobs.index import known_key_index

        sc = self.win.scenario
        if sc is None or not sc.edits or self._hold is None:
            return 0
        # the compaction its search just used; none yet (a result restored by undo/redo
        # without a search): the next search makes it in the worker, then this runs again
        g = sc.graph.cached_graph()
        if g is None:
            return 0
        hit = known_key_index(g)
        if g is self._edit_graph or (hit is not None and hit[0] is not None):
            return 0
        self._edit_graph = g
        backend = self.win.algo_panel.backend

        def fn(ctx: JobContext):
            from app.jobs import index_ahead
            from app.jobs.edit_index import edited_key_index
            from app.jobs.index import IndexInfo

            if not index_ahead.edits_ready():  # would compile here: the edited map
                return g, IndexInfo(reason=index_ahead.EDITS_WAIT), None  # searches without
            h, info = edited_key_index(g, sc.base_topology_key(), backend=backend,
                                       progress=ctx.progress, cancel=ctx.cancelled)
            return g, info, (h, info) if h is not None else None

        fn.__name__ = "route-index-edits"
        self._submit(fn, "edit")
        self.label.setText("route index: re-customizing for the edits")
        self.label.setVisible(True)
        return self._job

    # ---- worker signals -----------------------------------------------------------------
    def _progress(self, jid: int, frac: float, msg: str) -> None:
        if jid != self._job:
            return
        if frac < 0:  # a step without a fraction
            self.bar.setRange(0, 0)
            self.label.setText(f"route index: {msg}" if msg else self.label.text())
            return
        self._last_frac_t = time.perf_counter()
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(frac * 1000))
        eta = eta_text(time.perf_counter() - self._t0, frac)
        self.label.setText(f"route index {frac:.0%}" + (f" · {eta}" if eta else ""))
        if msg:
            self.label.setToolTip(msg)

    def _finished(self, jid: int, kind: str, result) -> None:
        if jid != self._job:
            return
        self._job = 0
        self._show_busy(False)
        graph, info, hit = result
        if kind == "edit":
            self._edit_done(graph, info, hit)
            return
        self.info = info
        if hit is None or hit[0] is None:
            self._set("unavailable", "" if self._auto else
                      "no route index for this graph (not a road map)")
            return
        self._hold = (graph, hit)
        how = {"cache": "loaded", "built": "built", "customized": "customized"}.get(
            info.source, info.source)
        self._set("ready", "route index ready")
        self._warm_billboards(graph)
        self.label.setToolTip(f"Route index {how} in {info.seconds:.1f} s: clicks and drags "
                              f"search through it ({info.summary.get('levels', '?')} levels)")
        self.win.status(f"Route index ready ({how} in {info.seconds:.1f} s): clicks now "
                        "search through it", 6000)
        if self._edit_pending:
            self._edit_pending = False
            self._field_changed()

    def _edit_done(self, g, info, hit) -> None:
        from app.jobs.index import remember_key_index

        self.edit_info = info
        sc = self.win.scenario
        if hit is None:
            self.label.setText("route index: none for the edited map")
            self.label.setToolTip(info.reason)
        else:
            if sc is not None and sc.edits:  # the compaction searches read, if made anew
                cur = sc.graph.cached_graph()
                if cur is not None and cur is not g and cur.num_arcs == g.num_arcs:
                    remember_key_index(cur, hit)
            self.label.setText("route index ready (edited map)")
            self.label.setToolTip(f"Re-customized for the edits in {info.seconds:.2f} s "
                                  f"({info.source})")
        self.editIndexed.emit(info)

    def _failed(self, jid: int, kind: str, exc) -> None:
        if jid != self._job:
            return
        self._job = 0
        self._show_busy(False)
        if kind == "edit":
            self.label.setText("route index: none for the edited map")
            self.label.setToolTip(str(exc))
            return
        self._set("failed", "route index failed")
        self.label.setToolTip(str(exc))
        self.win.status(f"The route index could not be built: {exc}", 8000)

    def _cancelled(self, jid: int, kind: str) -> None:
        if jid != self._job:
            return
        self._job = 0
        self._show_busy(False)
        if kind == "edit":
            self._edit_graph = None
            self.label.setText("route index ready" if self._hold is not None else "")
            return
        self._edit_pending = False
        self._set("cancelled", "route index cancelled")
        self.label.setToolTip("Search → Build route index builds it")
        self.win.status("Route index build cancelled; searches run without it", 6000)

    # ---- display --------------------------------------------------------------------------
    def _set(self, state: str, text: str) -> None:
        self.state = state
        self._tell_session()
        self._listen(state in ("building", "ready"))
        self.label.setText(text)
        self.label.setToolTip("")
        self.label.setVisible(bool(text))
        self.changed.emit(state)

    def _listen(self, on: bool) -> None:
        """Hear the window's drawn results (``_field_changed``) or stop hearing them."""
        if on != self._listening:
            sig = self.win.fieldChanged
            (sig.connect if on else sig.disconnect)(self._field_changed)
            self._listening = on

    def _check_stall(self) -> None:
        """No fraction for STALL_S: a moving busy bar (the label keeps the last figure)."""
        if not self._job:
            self._stall.stop()
        elif time.perf_counter() - self._last_frac_t > STALL_S and self.bar.maximum() != 0:
            self.bar.setRange(0, 0)

    def _show_busy(self, on: bool) -> None:
        if not on:
            self._stall.stop()
        self.bar.setVisible(on)
        self.btn.setVisible(on)
