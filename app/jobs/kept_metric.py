"""The CCH topology's kept metric on disk, beside the index (issue 41).

A customization keeps its basic metric on the topology object (``gpu_core.hierarchy.
partial.Metric``: per edge the input and customized weights, and the graph they came
from), so the next one that changes a few arcs (a closure) updates only the edges they
reach. That object lived only in the process: ``signpost matrix --close`` in a new
process re-customized in full (4.1 s on a 1.2M-node map against <= 50 ms partial).

Here the map's own metric is written beside its topology as ``cch-metric-<topology
key>.npz`` (atomic: a temporary file renamed; uncompressed, so every array is checked by
its zip CRC when read) and put back on the topology when the topology is read from disk.
A file of another topology, of other sizes, or damaged is removed and ignored (the next
customization is full, as before).
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from osutil.atomic import atomic_open

_ARRAYS = ("base_up", "base_down", "up", "down", "indptr", "indices", "weights")
FAMILY = "weights"  # the map's own weights (the search index's keys are not kept here)


def metric_path(tkey: str) -> str:
    """Where the kept metric of the topology with key ``tkey`` lives."""
    from maps.cache import cache_dir

    return os.fspath(cache_dir() / f"cch-metric-{tkey}.npz")


def _kept(t):
    m = (t.__dict__.get("_metrics") or {}).get(FAMILY)
    return m if m is not None and m.inputs is not None else None


def save(t) -> str:
    """Write ``t``'s kept metric of the map's weights (if any) beside the index; the path,
    or "" (none kept, or an unwritable folder: the next process customizes in full)."""
    m = _kept(t)
    if m is None or not getattr(t, "key", ""):
        return ""
    path = metric_path(t.key)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with atomic_open(path, "wb") as fh:
            np.savez(fh, topology=np.array(t.key), base_up=np.asarray(m.base_up),
                     base_down=np.asarray(m.base_down), up=np.asarray(m.up),
                     down=np.asarray(m.down), indptr=np.asarray(m.inputs.indptr),
                     indices=np.asarray(m.inputs.indices),
                     weights=np.asarray(m.inputs.weights))
    except OSError:
        return ""
    return path


def load_into(t) -> bool:
    """Put the kept metric written for ``t`` back on it (when it keeps none yet); False
    when there is none or it does not fit (then the file is removed)."""
    from gpu_core.hierarchy.inputs import KeptInputs
    from gpu_core.hierarchy.partial import keep

    if _kept(t) is not None or not getattr(t, "key", ""):
        return False
    path = metric_path(t.key)
    if not os.path.exists(path):
        return False
    try:
        with np.load(path, allow_pickle=False) as z:
            got = {k: z[k] for k in _ARRAYS}
            tkey = str(z["topology"])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError):
        _discard(path)
        return False
    e = int(t.edges)
    n = got["indptr"].shape[0] - 1
    fits = (tkey == t.key and all(got[k].shape == (e,) and got[k].dtype == np.int64
                                  for k in ("base_up", "base_down", "up", "down"))
            and n >= 0 and got["indices"].shape == got["weights"].shape
            and int(got["indptr"][-1]) == got["indices"].shape[0])
    if not fits:
        _discard(path)
        return False
    keep(t, got["base_up"], got["base_down"], got["up"], got["down"], None)
    t._metric.inputs = KeptInputs(got["indptr"], got["indices"], got["weights"])
    t.__dict__.setdefault("_metrics", {})[FAMILY] = t._metric
    return True


def _discard(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
