"""Worker threads: one job at a time, newest request wins, cooperative cancel.

A :class:`JobRunner` is a QThread that takes jobs (plain Python callables) from a one-slot
mailbox. Submitting a new job replaces a pending one and cancels the running one (its
``cancel`` callable starts returning True; gpu_core and maps poll it). Results, errors and
progress reach the GUI only through signals carrying plain values / numpy arrays. Threads
are never terminated: :meth:`JobRunner.shutdown` cancels and joins.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PySide6.QtCore import QThread, Signal

from gpu_core.errors import CancelledError
from gpu_core.telemetry import PHASE_DTYPE, PhaseLog

# Phase rows reach the GUI at most this often (about one screen refresh).
PHASE_EMIT_S = 1 / 60


@dataclass
class JobContext:
    """What a job function gets: a cancel check and ways to report progress and phases."""

    job_id: int
    runner: JobRunner
    cancel_event: threading.Event = field(default_factory=threading.Event)
    _phase_buf: list = field(default_factory=list)
    _last_emit: float = 0.0
    tag: str = ""

    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def progress(self, fraction: float | None, message: str = "") -> None:
        """Report progress; ``fraction`` None (unknown, e.g. a superstep count) is sent
        as -1."""
        frac = -1.0 if fraction is None else float(fraction)
        self.runner.progress.emit(self.job_id, frac, str(message))

    def on_phase(self, log: PhaseLog) -> None:
        """gpu_core's on_phase callback: buffer rows, emit them throttled to the refresh rate."""
        self._phase_buf.append(np.array(log.rows, dtype=PHASE_DTYPE, copy=True))
        now = time.perf_counter()
        if now - self._last_emit >= PHASE_EMIT_S:
            self.flush_phases()

    def on_superstep(self, row: np.void) -> None:
        """gpu_core.programs' on_superstep callback (one SUPERSTEP_DTYPE row): buffered and
        emitted like phase rows; the chart tells the two kinds apart by their dtype."""
        one = np.zeros(1, dtype=row.dtype)
        one[0] = row
        self._phase_buf.append(one)
        now = time.perf_counter()
        if now - self._last_emit >= PHASE_EMIT_S:
            self.flush_phases()

    def flush_phases(self) -> None:
        if self._phase_buf:
            rows = np.concatenate(self._phase_buf)
            self._phase_buf.clear()
            self._last_emit = time.perf_counter()
            self.runner.phases.emit(self.job_id, self.tag, rows)


@dataclass
class Job:
    """A callable for the worker. Its end is told by job id (the window keeps what to call
    per id); ``kind`` is only a label carried by the signals (logs, tests)."""

    fn: Callable[[JobContext], Any]
    kind: str = "compute"
    tag: str = ""  # the phase-chart run that its phase rows belong to


class JobRunner(QThread):
    """A worker thread with a one-job mailbox (see the module docstring)."""

    started_job = Signal(int, str)  # job id, kind
    finished_job = Signal(int, str, object)  # job id, kind, result
    failed_job = Signal(int, str, object)  # job id, kind, exception (message via str())
    cancelled_job = Signal(int, str)
    progress = Signal(int, float, str)
    phases = Signal(int, str, object)  # job id, tag, structured rows (PHASE_DTYPE or SUPERSTEP_DTYPE)

    def __init__(self, name: str = "worker", parent=None):
        super().__init__(parent)
        self.setObjectName(name)
        self._cv = threading.Condition()
        self._pending: tuple[Job, JobContext] | None = None
        self._current: JobContext | None = None
        self._stop = False
        self._next_id = 1

    # ---- main thread API --------------------------------------------------------------
    def submit(self, job: Job) -> int:
        """Queue ``job``; it replaces a pending one and cancels the running one."""
        with self._cv:
            jid = self._next_id
            self._next_id += 1
            ctx = JobContext(jid, self, tag=job.tag)
            if self._pending is not None:
                old = self._pending[1]
                self._pending = None
                self.cancelled_job.emit(old.job_id, "superseded")
            if self._current is not None:
                self._current.cancel_event.set()
            self._pending = (job, ctx)
            self._cv.notify_all()
        if not self.isRunning():
            self.start()
        return jid

    def cancel(self) -> None:
        """Cancel the running and the pending job."""
        with self._cv:
            if self._pending is not None:
                self.cancelled_job.emit(self._pending[1].job_id, self._pending[0].kind)
                self._pending = None
            if self._current is not None:
                self._current.cancel_event.set()

    def busy(self) -> bool:
        with self._cv:
            return self._pending is not None or self._current is not None

    def wait_idle(self, timeout_s: float = 30.0) -> bool:
        """Block until no job runs or waits (cancel them first); True when idle. For a
        change of state that a running job reads (what-if edits of the graph)."""
        end = time.monotonic() + timeout_s
        with self._cv:
            while self._pending is not None or self._current is not None:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(min(left, 0.05))
        return True

    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Cancel everything, stop the thread and join it; True when it stopped."""
        with self._cv:
            self._stop = True
            self._pending = None
            if self._current is not None:
                self._current.cancel_event.set()
            self._cv.notify_all()
        if self.isRunning():
            return self.wait(timeout_ms)
        return True

    # ---- worker thread ----------------------------------------------------------------
    def run(self) -> None:
        while True:
            with self._cv:
                while self._pending is None and not self._stop:
                    self._cv.wait(0.5)
                if self._stop:
                    return
                assert self._pending is not None  # the wait ends on a job or a stop
                job, ctx = self._pending
                self._pending = None
                self._current = ctx
            self.started_job.emit(ctx.job_id, job.kind)
            signal, args = self._run_job(job, ctx)
            # Idle before the end is told, so busy() is already False when the GUI handles it.
            with self._cv:
                self._current = None
                self._cv.notify_all()
            signal.emit(*args)
            # The result now belongs to the GUI thread alone: nothing of the job stays
            # alive here, to be freed on this thread later.
            del job, ctx, signal, args

    def _run_job(self, job: Job, ctx: JobContext) -> tuple:
        """Run one job; (the signal that tells its end, its arguments)."""
        try:
            result = job.fn(ctx)
            ctx.flush_phases()
            if ctx.cancelled():
                return self.cancelled_job, (ctx.job_id, job.kind)
            return self.finished_job, (ctx.job_id, job.kind, result)
        except CancelledError:
            ctx.flush_phases()
            return self.cancelled_job, (ctx.job_id, job.kind)
        except Exception as exc:  # reported to the GUI, never lost in the thread
            ctx.flush_phases()
            if ctx.cancelled():
                return self.cancelled_job, (ctx.job_id, job.kind)
            return self.failed_job, (ctx.job_id, job.kind, detached(exc))


def detached(exc: BaseException) -> BaseException:
    """``exc`` with its traceback kept as text (``__signpost_tb__``) and the traceback
    objects dropped: they hold this thread's frames (the job's locals), which the GUI
    thread must not keep alive or free."""
    exc.__dict__["__signpost_tb__"] = traceback.format_exc()  # an attribute of our own
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        e.__traceback__ = None
        e = e.__cause__ or e.__context__
    return exc
