"""Trace one left click in the window: which repository source files run from the mouse
event to the drawn result, and how often ``resolve_backend`` runs (issue 38; see
docs/perf/click_path.md). A profile hook (``sys.setprofile``) on the GUI thread and inside
every worker job (``JobRunner._run_job``) records the file of each Python function called;
only files of the packages below count (numba/scipy kernels, numpy, pyqtgraph and Qt are
not repository files)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGES = ("app", "gpu_core", "maps", "osutil", "resources")


@dataclass
class ClickTrace:
    """What one traced click ran: repository files, cross-package calls, backend choices."""

    files: set[str] = field(default_factory=set)
    functions: set[tuple[str, str]] = field(default_factory=set)  # (file, function name)
    layer_changes: set[tuple[str, str]] = field(default_factory=set)
    resolve_backend: int = 0


def _repo_file(filename: str) -> str | None:
    if not filename.startswith(ROOT + os.sep):
        return None
    rel = os.path.relpath(filename, ROOT)
    return rel if rel.split(os.sep, 1)[0] in PACKAGES else None


def _layer(rel: str) -> str:
    parts = rel.split(os.sep)
    return os.sep.join(parts[:2]) if len(parts) > 2 else parts[0]


@contextmanager
def traced_click() -> Iterator[ClickTrace]:
    """Profile the GUI thread and every worker job while the block runs."""
    from app.gui.workers import JobRunner

    trace = ClickTrace()

    def hook(frame, event, arg) -> None:
        if event != "call":
            return
        rel = _repo_file(frame.f_code.co_filename)
        if rel is None:
            return
        trace.files.add(rel)
        trace.functions.add((rel, frame.f_code.co_name))
        if frame.f_code.co_name == "resolve_backend" and rel.endswith("backend.py"):
            trace.resolve_backend += 1
        back = frame.f_back
        caller = _repo_file(back.f_code.co_filename) if back is not None else None
        if caller is not None and _layer(caller) != _layer(rel):
            trace.layer_changes.add((caller, rel))

    real: Callable = JobRunner._run_job

    def run_job(self, job, ctx):
        sys.setprofile(hook)
        try:
            return real(self, job, ctx)
        finally:
            sys.setprofile(None)

    JobRunner._run_job = run_job  # type: ignore[method-assign]
    sys.setprofile(hook)
    try:
        yield trace
    finally:
        sys.setprofile(None)
        JobRunner._run_job = real  # type: ignore[method-assign]
