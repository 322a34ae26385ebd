"""The host mirror of a device graph, brought up to date in the background.

On the cupy backend a batch is validated and applied on the device (``cuda``), and
``apply`` returns as soon as the device says it was valid. The same batch is applied to
the host arrays (``cpu.HostArcs``: what ``arc()``, ``out_arcs()``, the edit tools and the
repair plans read) by the host loop in one worker thread, meanwhile: random reads of
10,000 arcs of a 6M-arc graph cost the host more than the device's whole batch. The
numba loop releases the GIL. Whoever reads the mirror or the batch's summary waits for
it (``MutableGraph.host``, ``EditSummary``'s arrays); the next batch waits for it too,
so replays never overlap and run in the order applied.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:  # one thread for every graph: replays are short and ordered
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dynamic-mirror")
        return _pool


class Replay:
    """One batch being applied to the host arrays by the worker thread.

    ``done(log)`` runs in the worker right after a successful replay (before any later
    batch's), to read the summary's values."""

    def __init__(self, host, ops: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray,
                 done: Callable[[tuple], None]):
        self.future: Future = _executor().submit(self._run, host, ops, a, b, c, done)

    @staticmethod
    def _run(host, ops, a, b, c, done) -> tuple[int, int, int, int]:
        code, i, log, total, n = host.apply(ops, a, b, c)
        if not code:
            done(log)
        return code, i, total, n

    def result(self) -> tuple[int, int, int, int]:
        """(error code, edit index, total, n) of the host loop (see ``HostArcs.apply``)."""
        return self.future.result()

    def wait(self) -> None:
        """Until the mirror holds the batch; a batch the device applied must pass here."""
        code, i, _, _ = self.result()
        if code:
            raise RuntimeError(f"the host mirror rejected edit {i} (code {code}) of a batch "
                               "the device applied: the two validations disagree")
