"""``signpost matrix MAP --from a.csv --to b.csv --out m.csv|.npy``: a distance matrix.

Inputs: a CSV with a ``lon,lat`` header and one point per row (or a ``node`` header and
one node id of the map per row, for maps without coordinates). Points are snapped like
routes (``maps.points``/``maps.snap``: nearest road arc, its nearer end node). Output:
``.csv`` with header ``from,to,cost`` and one row per pair (``from``/``to`` = the 0-based
data-row numbers of the inputs, ``cost`` the integer cost in the map's unit, EMPTY when
unreachable), or ``.npy`` (int64 [F, T], -1 unreachable) for large matrices.

The matrix is computed and written chunk by chunk (it is never held whole), into a
temporary file beside ``--out`` that is renamed at the end: a failure or Ctrl-C leaves
no half-written output.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import tempfile
import time

import numpy as np

from app.cli import CliError

DESCRIPTION = __doc__.split("\n\n", 1)[1] if __doc__ else ""


def register(sub) -> None:
    from gpu_core.backend import BACKENDS
    from gpu_core.multi_source import VARIANTS

    from ._common import _snap_limit, add_map_arguments

    p = sub.add_parser(
        "matrix",
        help="costs between two point lists (CSV in; CSV or .npy out)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_map_arguments(p)
    p.add_argument("--from", dest="from_csv", required=True, metavar="A.csv",
                   help="origins: CSV with a lon,lat header (or node)")
    p.add_argument("--to", dest="to_csv", required=True, metavar="B.csv",
                   help="destinations: CSV with a lon,lat header (or node)")
    p.add_argument("--out", required=True, metavar="M.csv|M.npy", help="output file")
    p.add_argument("--backend", default="auto", choices=BACKENDS, help="compute backend")
    p.add_argument("--variant", default="auto", choices=VARIANTS,
                   help="GPU many-source variant (default: the fastest)")
    p.add_argument("--max-snap", type=_snap_limit, default=1000.0, metavar="M",
                   help="farthest a point may lie from a road, metres (default 1000)")
    p.add_argument("--chunk", type=int, default=None, metavar="ROWS",
                   help="origins per computed chunk (default: what fits memory)")
    p.set_defaults(func=run)


def read_points(path: str, net, max_snap: float, snapper_box: list) -> tuple[np.ndarray, list]:
    """Node indices of the points in ``path`` and their (lon, lat) or node-id keys.

    PointError names the file, line and row for anything unreadable or off the map.
    """
    from maps.errors import MapError, PointError

    try:
        fh = open(path, newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        with fh:
            text = fh.read()
    except UnicodeDecodeError as exc:
        raise PointError(f"not a UTF-8 text file ({exc.reason} at byte {exc.start})",
                         path=path) from None
    lines = text.splitlines()
    # header: first non-blank line
    k = 0
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k == len(lines):
        raise PointError("no header and no points: expected a 'lon,lat' header", path=path)
    delim = _delimiter(lines[k])
    rows = list(csv.reader(lines, delimiter=delim))
    header = [c.strip().lower() for c in rows[k]]
    kind, idx = _pick_columns(header, net)
    if kind is None:
        raise PointError(
            f"header is {delim.join(rows[k])!r}: expected 'lon,lat' columns (any order, "
            "others ignored) or a 'node' column of node ids",
            path=path, line=k + 1,
        )
    width = max(idx) + 1
    nodes: list[int] = []
    keys: list = []
    for lineno, row in enumerate(rows[k + 1:], start=k + 2):
        if not any(c.strip() for c in row):
            continue  # blank lines are not rows
        i = len(nodes)
        where = f"row {i}"
        try:
            if len(row) < width:
                what = "a node id" if kind == "node" else "lon and lat"
                raise PointError(f"{where}: expected {what} in column(s) "
                                 f"{', '.join(str(j + 1) for j in idx)}, got {len(row)} "
                                 f"field(s) ({delim.join(row)!r})")
            if kind == "node":
                text = row[idx[0]].strip()
                try:
                    nid = int(text)
                except ValueError:
                    if not net.meta.get("node_names"):  # GraphML keeps non-integer ids
                        raise PointError(f"{where}: node id {text!r} is not an integer") \
                            from None
                    nid = text
                # As route's node:ID: GraphML names, and OSM nodes inside a way (snapped
                # to the arc through them) resolve too.
                node = _node(net, nid, snapper_box)
                keys.append(nid)
            else:
                cells = f"{row[idx[0]].strip()},{row[idx[1]].strip()}"
                try:
                    lon, lat = float(row[idx[0]]), float(row[idx[1]])
                except ValueError:
                    raise PointError(f"{where}: {cells!r} is not two numbers (lon,lat)") from None
                if not (math.isfinite(lon) and math.isfinite(lat)):
                    raise PointError(f"{where}: {cells!r} is not finite (lon,lat)")
                node = _snap(net, lon, lat, max_snap, snapper_box)
                keys.append((lon, lat))
        except MapError as exc:
            detail = exc.detail if exc.detail.startswith("row ") else f"{where}: {exc.detail}"
            raise PointError(detail, path=path, line=lineno) from None
        nodes.append(int(node))
    if not nodes:
        raise PointError("no points after the header", path=path)
    return np.asarray(nodes, dtype=np.int32), keys


LON_NAMES = ("lon", "lng", "long", "longitude")
LAT_NAMES = ("lat", "latitude")
NODE_NAMES = ("node", "node_id", "nodeid")


def _delimiter(header_line: str) -> str:
    """',' unless the header has none and a ';' or a tab separates its names."""
    if "," in header_line:
        return ","
    for d in (";", "\t"):
        if d in header_line:
            return d
    return ","


def _pick_columns(header: list[str], net) -> tuple[str | None, tuple[int, ...]]:
    """('lonlat', (lon col, lat col)) or ('node', (col,)) by header name; (None, ()).

    Columns are found by name, so their order does not matter and other columns are
    ignored. With both kinds present, lon/lat is used on a map with coordinates."""

    def find(names):
        for j, h in enumerate(header):
            if h in names:
                return j
        return None

    lon, lat, node = find(LON_NAMES), find(LAT_NAMES), find(NODE_NAMES)
    has_ll = lon is not None and lat is not None
    if node is not None and (not has_ll or not net.has_coordinates):
        return "node", (node,)
    if has_ll:
        return "lonlat", (lon, lat)
    return None, ()


def _node(net, nid: int | str, snapper_box: list) -> int:
    from maps.points import resolve_point

    snapper = None
    if net.meta.get("format") == "osm" and net.has_coordinates:
        try:
            return net.index_of(int(nid))
        except Exception:  # an OSM node inside a way: resolve_point snaps it
            from maps.snap import Snapper

            if not snapper_box:
                snapper_box.append(Snapper(net))
            snapper = snapper_box[0]
    return resolve_point(net, f"node:{nid}", snapper=snapper).node


def _snap(net, lon: float, lat: float, max_snap: float, snapper_box: list) -> int:
    from maps.errors import PointError

    if not net.has_coordinates:
        raise PointError("this map has no coordinates: give points as a 'node' column of ids")
    try:
        from maps.snap import Snapper
    except ImportError:  # pragma: no cover - maps.snap is part of the package
        Snapper = None
    if Snapper is not None:
        if not snapper_box:
            snapper_box.append(Snapper(net))
        return snapper_box[0].snap_lonlat(lon, lat, max_distance_m=max_snap).node
    # fallback without the snapping module: the nearest node by great-circle distance
    from maps.projection import haversine_m

    d = haversine_m(lon, lat, net.lon, net.lat)
    i = int(np.nanargmin(d))
    if d[i] > max_snap:
        raise PointError(f"point {lon},{lat} is {d[i]:.0f} m from the nearest node")
    return i


def _note_duplicates(path: str, keys: list, nodes: np.ndarray) -> None:
    seen: dict = {}
    dup = []
    for i, k in enumerate(keys):
        if k in seen:
            dup.append((seen[k], i))
        else:
            seen[k] = i
    if dup:
        pairs = ", ".join(f"{a}={b}" for a, b in dup[:5]) + (" ..." if len(dup) > 5 else "")
        print(f"note: {path}: {len(dup)} duplicate point(s) (rows {pairs}); computed anyway",
              file=sys.stderr)
    same_node = len(nodes) - len(np.unique(nodes)) - len(dup)
    if same_node > 0:
        print(f"note: {path}: {same_node} more row(s) snap to a node another row already uses",
              file=sys.stderr)


def _fmt_bytes(n: int) -> str:
    x = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if x < 1024 or unit == "TiB":
            return f"{x:.1f} {unit}"
        x /= 1024
    return f"{n} B"


def _output_bytes(F: int, T: int, npy: bool) -> int:
    """Bytes the output will take: exact for .npy, a lower bound for CSV (each row
    ``from,to,cost`` has at least the digits of its row numbers, two commas and a newline)."""
    if npy:
        return F * T * 8 + 128
    return F * T * (len(str(max(F - 1, 0))) + len(str(max(T - 1, 0))) + 3)


def _check_disk(out_dir: str, F: int, T: int, npy: bool) -> None:
    """Refuse up front when the output cannot fit the disk (a memmap on a full disk would
    crash with SIGBUS, a CSV stop half-way)."""
    import shutil

    need = _output_bytes(F, T, npy)
    try:
        free = shutil.disk_usage(out_dir).free
    except OSError:
        return
    if need > free:
        raise CliError(
            f"the {F} x {T} matrix needs {'' if npy else 'at least '}{need} bytes "
            f"({_fmt_bytes(need)}) in {out_dir}, which has only {free} bytes "
            f"({_fmt_bytes(free)}) free" + ("" if npy else "; a .npy output is smaller")
        )


def _csv_lines(r0: int, block: np.ndarray) -> str:
    k, t = block.shape
    out = []
    for i in range(k):
        row = block[i].tolist()
        fr = r0 + i
        out.append("".join(
            f"{fr},{j},{c}\n" if c >= 0 else f"{fr},{j},\n" for j, c in enumerate(row)
        ))
    return "".join(out)


def run(args: argparse.Namespace) -> int:
    from gpu_core.multi_source import (
        available_memory,
        iter_distance_rows,
        open_npy_temp,
    )

    from ._common import open_map

    out = args.out
    low = out.lower()
    if not low.endswith((".csv", ".npy")):
        raise CliError(f"--out {out!r}: write .csv or .npy")
    out_dir = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(out_dir):
        raise CliError(f"--out {out!r}: folder {out_dir} does not exist")
    if args.chunk is not None and args.chunk < 1:
        raise CliError(f"--chunk must be >= 1, got {args.chunk}")
    t0 = time.perf_counter()
    net = open_map(args)
    box: list = []
    src, skeys = read_points(args.from_csv, net, args.max_snap, box)
    dst, dkeys = read_points(args.to_csv, net, args.max_snap, box)
    _note_duplicates(args.from_csv, skeys, src)
    _note_duplicates(args.to_csv, dkeys, dst)
    F, T = int(src.shape[0]), int(dst.shape[0])
    nbytes = F * T * 8
    if nbytes > available_memory() // 2:
        hint = "" if low.endswith(".npy") else " (a .npy output is far smaller than CSV)"
        print(f"note: the {F} x {T} matrix is {nbytes} bytes ({_fmt_bytes(nbytes)}), more than "
              f"fits in memory: streaming it to disk in chunks{hint}", file=sys.stderr)
    _check_disk(out_dir, F, T, low.endswith(".npy"))
    stats: dict = {}
    rows = iter_distance_rows(net, src, targets=dst, backend=args.backend, variant=args.variant,
                              chunk=args.chunk, stats=stats)
    unreachable = 0
    tmp = None
    try:
        if low.endswith(".npy"):
            mm, tmp = open_npy_temp(out, (F, T))
            for r0, block in rows:
                mm[r0 : r0 + block.shape[0]] = block
                unreachable += int((block < 0).sum())
            mm.flush()
            del mm
        else:
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".csv", dir=out_dir)
            with os.fdopen(fd, "w", newline="") as fh:
                fh.write("from,to,cost\n")
                for r0, block in rows:
                    fh.write(_csv_lines(r0, block))
                    unreachable += int((block < 0).sum())
        os.replace(tmp, out)
        tmp = None
    except OSError as exc:  # disk full, permissions, ...: one line, no traceback
        raise CliError(f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:  # failed or interrupted: no half-written output
            try:
                os.unlink(tmp)
            except OSError:
                pass
    el = time.perf_counter() - t0
    print(f"wrote {out}: {F} x {T} costs in {net.unit} ({unreachable} unreachable), "
          f"backend {stats.get('backend', args.backend)} ({stats.get('variant', args.variant)}), "
          f"{el:.2f} s")
    return 0
