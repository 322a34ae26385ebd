"""Reading a billboards run's events in tests: the partial results it streamed, and its
final event."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def partials_and_result(events: Iterable[Any]) -> tuple[list, Any]:
    """(every event's ``partial`` in order, the last event) of ``gpu_core.billboards``."""
    partials, result = [], None
    for ev in events:
        if getattr(ev, "partial", None) is not None:
            partials.append(ev.partial)
        result = ev
    return partials, result
