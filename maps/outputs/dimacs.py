"""A network written as DIMACS ``.gr`` (``.gr.gz``) plus ``.co`` coordinates, the format
``maps.formats.dimacs`` reads; rows built with numpy, both files renamed into place together.
"""

from __future__ import annotations

import gzip
import os

import numpy as np

from osutil.atomic import atomic_paths

from ..formats.dimacs import co_files
from ..model.network import RoadNetwork

_POW10 = 10 ** np.arange(19, dtype=np.uint64)


def format_int_rows(prefix: str, cols: list[np.ndarray]) -> bytes:
    """``prefix c1 c2 ...\\n`` for every row, built with numpy (no per-row Python)."""
    rows = int(cols[0].shape[0]) if cols else 0
    if rows == 0:
        return b""
    parts: list[tuple[np.ndarray, np.ndarray]] = []  # (bytes matrix, valid mask)
    pre = np.frombuffer(prefix.encode(), dtype=np.uint8)
    if pre.size:
        parts.append((np.broadcast_to(pre, (rows, pre.size)), np.ones((rows, pre.size), bool)))
    for c in cols:
        c = np.asarray(c, dtype=np.int64)
        neg = c < 0
        a = np.abs(c).astype(np.uint64)
        ndig = np.maximum(np.searchsorted(_POW10, a, side="right"), 1)
        width = int((ndig + neg).max()) + 1  # + leading blank
        mat = np.full((rows, width), 32, dtype=np.uint8)
        mask = np.zeros((rows, width), dtype=bool)
        if pre.size or parts:
            mask[:, 0] = True  # separating blank
        for j in range(int(ndig.max())):
            col = width - 1 - j
            mat[:, col] = 48 + (a // _POW10[j]) % 10
            mask[:, col] = j < ndig
        if neg.any():
            r = np.flatnonzero(neg)
            mat[r, width - 1 - ndig[r]] = ord("-")
            mask[r, width - 1 - ndig[r]] = True
        parts.append((mat, mask))
    parts.append((np.full((rows, 1), 10, np.uint8), np.ones((rows, 1), bool)))
    mat = np.concatenate([p[0] for p in parts], axis=1)
    mask = np.concatenate([p[1] for p in parts], axis=1)
    return mat[mask].tobytes()


def _write(path: str, data: bytes, *, name: str) -> None:
    """``data`` into the file ``path``, gzip-compressed when the target ``name`` ends .gz
    (its header names the target, not the temporary)."""
    if name.lower().endswith(".gz"):
        with open(path, "wb") as raw, gzip.GzipFile(name, "wb", 1, raw) as fh:
            fh.write(data)
    else:
        with open(path, "wb") as fh:
            fh.write(data)


def write_dimacs(net: RoadNetwork, path: str | os.PathLike, comment: str = "") -> list[str]:
    """Write ``net`` as DIMACS ``.gr`` (``.gr.gz`` compresses), plus ``.co`` with coordinates,
    both renamed into place together (never a ``.gr`` without its ``.co``).

    Nodes are numbered by index + 1 (DIMACS needs 1..N; the network's own node_ids are not
    kept). Returns the paths written.
    """
    path = os.fspath(path)
    tails = net.arc_sources().astype(np.int64) + 1
    heads = net.indices.astype(np.int64) + 1
    head = "c written by signpost\n"
    for line in comment.splitlines():
        head += f"c {line}\n"
    head += f"p sp {net.num_nodes} {net.num_arcs}\n"
    files = [(path, head.encode() + format_int_rows("a", [tails, heads, net.weights]))]
    co = co_files(path)
    if net.has_coordinates and co:
        co_path = co[1] if path.lower().endswith(".gz") else co[0]
        ids = np.arange(1, net.num_nodes + 1, dtype=np.int64)
        x = np.rint(net.lon * 1e6).astype(np.int64)
        y = np.rint(net.lat * 1e6).astype(np.int64)
        co_head = f"c written by signpost\np aux sp co {net.num_nodes}\n".encode()
        files.append((co_path, co_head + format_int_rows("v", [ids, x, y])))
    written = [f for f, _ in files]
    with atomic_paths(written) as temps:
        for tmp, (target, data) in zip(temps, files, strict=True):
            _write(tmp, data, name=target)
    # A sibling .co left from an earlier map would be read with this one: remove it.
    for stale in co:
        if stale not in written and os.path.exists(stale):
            os.unlink(stale)
    return written
