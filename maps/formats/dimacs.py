"""DIMACS 9th-challenge ``.gr``/``.co`` and PACE-2016 ``.gr.xz`` graphs (numpy only).
(Over 500 lines: the DIMACS and PACE readers share the bounded, checked line parser.)

DIMACS ``.gr`` (seed 004's USA road graphs)::

    c comment
    p sp N M          N nodes, M arcs
    a U V W           one arc U->V of weight W (1-based ids, W an integer; negative W are
                      taken: only the label-correcting strategies search such maps)

The sibling ``.co`` file (same stem, ``.co`` or ``.co.gz``) holds ``v ID X Y`` with X = lon
and Y = lat in integer micro-degrees. PACE-2016 ``.gr(.xz)`` holds ``p tw N M`` and one
line ``U V`` per undirected road, without weights: see :func:`load_pace` for how they
are weighted.

Parsing is two-tier. The fast path checks the bytes with numpy (only digits, blanks and
the line letter; the right number of numbers on every line) and converts them with one
``np.fromstring`` call: the 1.5M-node NE graph parses in well under a second. Anything the
fast path does not accept (comments between arcs, bad tokens, out-of-range values) goes
to a line-by-line parser, which is the reference: it either accepts the file the same way
or raises :class:`~maps.errors.MapFormatError` naming the file and line.

Longer than our ~500-line habit on purpose: the three formats share the p-line reader,
both parsing tiers and the count checks, and splitting them would separate each fast path
from the reference parser it must agree with. Writing is ``maps.outputs.dimacs``.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..errors import LoadCancelledError, MapFormatError
from ..model.build import build_network, build_two_way
from ..model.network import RoadNetwork
from ..source import check_line_lengths, read_bounded

Progress = Callable[[float, str], None]
Cancel = Callable[[], bool]

WEIGHT_LIMIT = 2**31  # weights must be < 2^31 (int32 arrays)
PACE_WEIGHT_RANGE = (1, 1000)  # inclusive, as seed 003 weighted RoadNet-CA

_WS = np.zeros(256, dtype=bool)
_WS[[9, 10, 13, 32]] = True
_DIGITS_WS = _WS.copy()
_DIGITS_WS[48:58] = True
_SIGNED = _DIGITS_WS.copy()
_SIGNED[ord("-")] = True


# ---- shared helpers ------------------------------------------------------------------------
def _report(progress: Progress | None, frac: float, msg: str) -> None:
    if progress is not None:
        progress(frac, msg)


def _check_cancel(cancel: Cancel | None, path: str) -> None:
    if cancel is not None and cancel():
        raise LoadCancelledError("loading cancelled", path=path)


def read_bytes(path: str) -> bytes:
    """The file's bytes, decompressed by its magic number (gzip, xz, bz2 or plain), within
    the limits of :mod:`maps.source` (size, binary content)."""
    data = read_bounded(path, text="DIMACS")
    check_line_lengths(data, path)  # the fast parsers skip no line the limit covers
    return data


def _strip_bom(data: bytes) -> bytes:
    """Text saved by Windows editors may start with a UTF-8 byte-order mark."""
    return data[3:] if data[:3] == b"\xef\xbb\xbf" else data


def _show(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _fast_table(
    body: bytes, ncols: int, letter: str | None, signed: bool = False
) -> tuple[np.ndarray, np.ndarray] | None:
    """Parse ``body`` as lines of ``[letter] int*ncols`` with numpy, or None if unsure.

    Returns (values (k, ncols) int64, 0-based line index of each row within ``body``).
    None means "not plainly well-formed": the caller falls back to the line parser.
    A few linear passes over the bytes, no per-line Python.
    """
    arr = np.frombuffer(body, dtype=np.uint8)
    if arr.size == 0:
        return np.zeros((0, ncols), dtype=np.int64), np.zeros(0, dtype=np.int64)
    line_start = np.flatnonzero(arr == 10) + 1
    line_start = np.concatenate([[0], line_start[line_start < arr.size]])
    nletters = 0
    if letter is not None:
        is_letter = arr == ord(letter)
        nletters = int(np.count_nonzero(is_letter))
        arr = np.where(is_letter, np.uint8(32), arr)
    if not (_SIGNED if signed else _DIGITS_WS)[arr].all():
        return None
    ws = _WS[arr]
    starts = ~ws
    starts[1:] &= ws[:-1]
    sidx = np.flatnonzero(starts)
    # Tokens per line: where each line's start falls among the token starts (both sorted).
    counts = np.diff(np.append(np.searchsorted(sidx, line_start), sidx.size))
    used = np.flatnonzero(counts)
    if not (counts[used] == ncols).all():
        return None
    if letter is not None:
        # Every data line starts with the letter and a blank; no letter anywhere else.
        first = line_start[used]
        raw = np.frombuffer(body, dtype=np.uint8)
        if nletters != used.size or not (raw[first] == ord(letter)).all():
            return None
        if (first + 1 >= raw.size).any() or not _WS[raw[first + 1]].all():
            return None
    try:
        vals = np.fromstring(arr.tobytes() if letter else body, dtype=np.int64, sep=" ")
    except ValueError:  # e.g. "1-2"
        return None
    if vals.size != used.size * ncols:
        return None
    return vals.reshape(-1, ncols), used


def _read_parsed(
    path: str,
    parse: Callable[[bytes, str], tuple[int, np.ndarray, np.ndarray]],
    progress: Progress | None,
    cancel: Cancel | None,
    reading: str,
    at: float,
    parsing: str,
) -> tuple[int, np.ndarray, np.ndarray]:
    """``parse(file bytes, path)``, reporting ``reading`` at 0 and ``parsing`` at ``at``
    and checking ``cancel`` after each step (the bytes are freed before returning)."""
    _report(progress, 0.0, reading)
    data = read_bytes(path)
    _check_cancel(cancel, path)
    _report(progress, at, parsing)
    parsed = parse(data, path)
    del data
    _check_cancel(cancel, path)
    return parsed


def _split_header(data: bytes, letter: str | None) -> tuple[list[tuple[int, bytes]], int, int]:
    """The lines before the first data line: [(lineno, line)], byte offset, lines skipped.

    Header lines are blank, ``c`` comments or the ``p`` line. The data starts at the first
    line beginning with ``letter`` (or a digit when letter is None). If another kind of line
    comes first, the data offset is that line's (the parsers then report it).
    """
    header = []
    pos = 0
    lineno = 0
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        if end < 0:
            end = n
        line = data[pos:end]
        first = line.lstrip()[:1]
        if letter is not None and line[:1] == letter.encode():
            break
        if letter is None and line[:1].isdigit():
            break
        if first not in (b"", b"c", b"p"):
            break  # something unexpected: the parsers see it as data and say what is wrong
        lineno += 1
        header.append((lineno, line))
        pos = end + 1
    return header, min(pos, n), lineno


# The shortest line of one arc ("a 1 2 0\n") and of one PACE edge ("1 2\n"), in bytes.
MIN_LINE = {"arc": 8, "edge": 4}


def _implausible(n: int, m: int, nbytes: int, item: str) -> str | None:
    """Why the counts of a p line cannot be this file's, or None. Checked before anything
    is allocated (issue 40: a 2 KB .gr.xz claiming 200M nodes took 5.6 GB): the M
    ``item`` lines must fit in the file's ``nbytes`` decompressed bytes, and above 10M
    nodes (no small test graph) the arcs must back the nodes, at most 2 per arc."""
    most = nbytes // MIN_LINE[item]
    if m > most:
        return (f"{item} count {m:,} is more than a file of {nbytes:,} bytes can hold "
                f"(at most {most:,})")
    if n > 10_000_000 and (n > 16 * nbytes or n > 2 * m):
        return (f"node count {n:,} is implausible for a file of {nbytes:,} bytes with "
                f"{m:,} {item}s")
    return None


def _check_node_count(n: int, m: int, nbytes: int, item: str, path: str,
                      lineno: int | None) -> None:
    """Refuse counts no real file of this size has (they would only exhaust memory)."""
    why = _implausible(n, m, nbytes, item)
    if why is not None:
        raise MapFormatError(why, path=path, line=lineno)


def _int_token(tok: bytes, what: str, path: str, lineno: int, *, lo: int, hi: int) -> int:
    """A decimal integer in [lo, hi) or a MapFormatError naming the line and value."""
    if len(tok) > 24:  # also keeps int() away from its 4300-digit limit
        raise MapFormatError(f"{what} {_show(tok)} is out of range", path=path, line=lineno)
    if tok.isdigit():
        val = int(tok)
    elif tok[:1] in (b"-", b"+") and tok[1:].isdigit():
        val = int(tok)
    else:
        raise MapFormatError(f"{what} {_show(tok)} is not an integer", path=path, line=lineno)
    if val < lo:
        if what == "weight" and val < 0 and lo == 0:
            raise MapFormatError(f"negative weight {val}", path=path, line=lineno)
        raise MapFormatError(f"{what} {val} is below {lo}", path=path, line=lineno)
    if val >= hi:
        raise MapFormatError(
            f"{what} {val} is above {hi - 1}, the largest allowed", path=path, line=lineno
        )
    return val


# ---- which of the two -----------------------------------------------------------------------
def sniff_kind(path: str, kind: str) -> str:
    """Which reader, "pace" or "dimacs", reads ``path``, whose name says ``kind``.

    The p line decides, not the extension: ``xz -d NE.gr.xz`` gives a PACE NE.gr, and a
    gzipped PACE file is a .gr.gz. Without a readable p line the name decides.
    """
    problem = _problem_line(path)
    return "pace" if problem == b"tw" or (problem is None and kind == "pace") else "dimacs"


def _problem_line(path: str, limit: int = 1 << 16) -> bytes | None:
    """The problem type of a DIMACS/PACE file's ``p`` line (b"sp", b"tw", ...) from its
    first ``limit`` decompressed bytes; None when there is none or the file is unreadable
    (the loader then reports what is wrong)."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
        opener = (
            gzip.open
            if magic[:2] == b"\x1f\x8b"
            else lzma.open
            if magic == b"\xfd7zXZ\x00"
            else bz2.open
            if magic[:3] == b"BZh"
            else open
        )
        with opener(path, "rb") as fh:
            head = fh.read(limit)
    except (OSError, EOFError, lzma.LZMAError, ValueError):
        return None
    for line in _strip_bom(head).splitlines():
        tok = line.split()
        if tok and tok[0] == b"p":
            return tok[1] if len(tok) > 1 else None
        if tok and not tok[0].startswith(b"c"):
            return None  # arcs before any p line: the loader names the line
    return None


def _p_line(
    tok: list[bytes], raw: bytes, data: bytes, path: str, lineno: int, problem: bytes, item: str,
    *, seen: bool,
) -> tuple[int, int]:  # fmt: skip
    """(N, M) of a ``p PROBLEM N M`` line (M counts ``item``s); MapFormatError naming the
    line when it is malformed, implausible or not the first p line (``seen``)."""
    if seen:
        raise MapFormatError("a second 'p' line", path=path, line=lineno)
    if len(tok) != 4 or tok[1] != problem:
        raise MapFormatError(
            f"expected 'p {problem.decode()} N M', got {_show(raw)}", path=path, line=lineno
        )
    n = _int_token(tok[2], "node count", path, lineno, lo=0, hi=WEIGHT_LIMIT)
    m = _int_token(tok[3], f"{item} count", path, lineno, lo=0, hi=2**62)
    _check_node_count(n, m, len(data), item, path, lineno)
    return n, m


def _check_count(
    n: int | None, m: int | None, rows: int, data: bytes, path: str, p_line: int,
    problem: bytes, item: str,
) -> int:  # fmt: skip
    """N of the p line; MapFormatError when the file had no p line or not the M ``item``
    lines it announced."""
    if n is None:
        last = max(1, data.count(b"\n"))
        raise MapFormatError(f"missing 'p {problem.decode()} N M' line", path=path, line=last)
    if rows != m:
        raise MapFormatError(
            f"the p line announces {m} {item}s but the file has {rows}", path=path, line=p_line
        )
    return n


# ---- DIMACS .gr ----------------------------------------------------------------------------
def _parse_gr_slow(data: bytes, path: str) -> tuple[int, np.ndarray, np.ndarray]:
    """Reference parser of a DIMACS .gr: (n, arcs (m,3) 1-based, line of every arc)."""
    check_line_lengths(data, path)
    n = m = None
    p_line = 0
    rows: list[tuple[int, int, int]] = []
    lines: list[int] = []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        tok = raw.split()
        if not tok or tok[0][:1] == b"c":
            continue
        kind = tok[0]
        if kind == b"p":
            if n is None and len(tok) >= 2 and tok[1] == b"tw":
                raise MapFormatError(
                    "this is a PACE 'p tw' graph without weights: name it .gr.xz or use load_pace",
                    path=path,
                    line=lineno,
                )
            n, m = _p_line(tok, raw, data, path, lineno, b"sp", "arc", seen=n is not None)
            p_line = lineno
        elif kind == b"a":
            if n is None:
                raise MapFormatError(
                    "arc before the 'p sp N M' line (missing p line)", path=path, line=lineno
                )
            if len(tok) != 4:
                raise MapFormatError(
                    f"expected 'a U V W', got {_show(raw)}", path=path, line=lineno
                )
            u = _int_token(tok[1], "tail", path, lineno, lo=1, hi=n + 1)
            v = _int_token(tok[2], "head", path, lineno, lo=1, hi=n + 1)
            w = _int_token(tok[3], "weight", path, lineno, lo=1 - WEIGHT_LIMIT, hi=WEIGHT_LIMIT)
            rows.append((u, v, w))
            lines.append(lineno)
        else:
            raise MapFormatError(f"unknown line type {_show(kind)}", path=path, line=lineno)
    n = _check_count(n, m, len(rows), data, path, p_line, b"sp", "arc")
    arcs = np.array(rows, dtype=np.int64).reshape(-1, 3)
    return n, arcs, np.array(lines, dtype=np.int64)


def _parse_gr(data: bytes, path: str) -> tuple[int, np.ndarray, np.ndarray]:
    header, off, skipped = _split_header(data, "a")
    p = [(ln, line.split()) for ln, line in header if line.lstrip()[:1] == b"p"]
    if len(p) == 1 and len(p[0][1]) == 4 and p[0][1][1] == b"sp":
        ptok = p[0][1]
        if ptok[2].isdigit() and ptok[3].isdigit() and len(ptok[2]) + len(ptok[3]) < 30:
            n, m = int(ptok[2]), int(ptok[3])
            fast = _fast_table(data[off:], 3, "a", signed=True)
            if fast is not None:
                arcs, rel = fast
                ok = arcs.shape[0] == m and n < WEIGHT_LIMIT
                ok = ok and _implausible(n, m, len(data), "arc") is None
                if ok and m:
                    ok = (
                        arcs[:, :2].min() >= 1
                        and arcs[:, :2].max() <= n
                        and 0 <= arcs[:, 2].min()
                        and arcs[:, 2].max() < WEIGHT_LIMIT
                        and arcs[:, 2].min() > -WEIGHT_LIMIT
                    )
                if ok:
                    return n, arcs, rel + skipped + 1
    return _parse_gr_slow(data, path)  # raises with the line, or accepts the odd layout


def co_files(path: str) -> list[str]:
    """Where the coordinates of the .gr ``path`` may be (``.co``, ``.co.gz``)."""
    p = str(path)
    low = p.lower()
    for ext in (".gr.gz", ".gr"):
        if low.endswith(ext):
            stem = p[: -len(ext)]
            return [stem + ".co", stem + ".co.gz"]
    return []


def _parse_co_slow(data: bytes, path: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    check_line_lengths(data, path)
    lon = np.full(n, np.nan)
    lat = np.full(n, np.nan)
    seen = np.zeros(n, dtype=bool)
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        tok = raw.split()
        if not tok or tok[0][:1] in (b"c", b"p"):
            continue
        if tok[0] != b"v" or len(tok) != 4:
            raise MapFormatError(f"expected 'v ID X Y', got {_show(raw)}", path=path, line=lineno)
        i = _int_token(tok[1], "node id", path, lineno, lo=1, hi=n + 1) - 1
        x = _int_token(tok[2], "x (lon*1e6)", path, lineno, lo=-180_000_000, hi=180_000_001)
        y = _int_token(tok[3], "y (lat*1e6)", path, lineno, lo=-90_000_000, hi=90_000_001)
        if seen[i]:
            raise MapFormatError(
                f"node {i + 1} has a second coordinate line", path=path, line=lineno
            )
        seen[i] = True
        lon[i], lat[i] = x / 1e6, y / 1e6
    if not seen.all():
        missing = int(np.flatnonzero(~seen)[0]) + 1
        raise MapFormatError(
            f"{int((~seen).sum())} of {n} nodes have no coordinates (first: node {missing})",
            path=path,
        )
    return lon, lat


def _parse_co(data: bytes, path: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    _header, off, _ = _split_header(data, "v")
    fast = _fast_table(data[off:], 3, "v", signed=True)
    if fast is not None:
        vals, _ = fast
        if vals.shape[0] == n and n:
            ids = vals[:, 0]
            x, y = vals[:, 1], vals[:, 2]
            if (
                ids.min() >= 1
                and ids.max() <= n
                and np.abs(x).max() <= 180_000_000
                and np.abs(y).max() <= 90_000_000
                and np.bincount(ids - 1, minlength=n).max() == 1
            ):
                lon = np.empty(n)
                lat = np.empty(n)
                lon[ids - 1] = x / 1e6
                lat[ids - 1] = y / 1e6
                return lon, lat
    return _parse_co_slow(data, path, n)


def load_dimacs(
    path: str | os.PathLike,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> RoadNetwork:
    """Read a DIMACS ``.gr`` (plain or gzip) and its sibling ``.co`` when present.

    Arcs are kept as given (duplicates and self-loops included), weights unit="unit",
    node_ids 1..N, ``edge_source_id`` = the arc's line number. Without a ``.co`` file lon/lat
    are NaN and x/y zero. Malformed input raises MapFormatError naming file and line.
    """
    path = os.fspath(path)
    n, arcs, lines = _read_parsed(path, _parse_gr, progress, cancel, "reading", 0.2, "parsing arcs")
    lon = lat = None
    co_used = ""
    for co in co_files(path):
        if os.path.exists(co):
            _report(progress, 0.5, "parsing coordinates")
            lon, lat = _parse_co(read_bytes(co), co, n)
            co_used = co
            break
    _check_cancel(cancel, path)
    _report(progress, 0.7, "building the network")
    net = build_network(
        tails=arcs[:, 0] - 1,
        heads=arcs[:, 1] - 1,
        weights=arcs[:, 2],
        allow_negative=True,
        node_ids=np.arange(1, n + 1, dtype=np.int64),
        unit="unit",
        profile="file",
        lon=lon,
        lat=lat,
        edge_source_id=lines,
        name=_stem(path),
        source_path=path,
        meta={"format": "dimacs", "coordinates": co_used or None},
    )
    _report(progress, 1.0, "done")
    return net


# ---- PACE 2016 -----------------------------------------------------------------------------
def pace_weights(m: int, seed: int) -> np.ndarray:
    """The weights :func:`load_pace` gives the ``m`` roads of a PACE file (int64, m).

    ``numpy.random.default_rng(seed).integers(1, 1001, size=m, dtype=np.int64)``: road i,
    the i-th ``U V`` line after the header in file order (0-based), gets element i, and
    both its arcs U->V and V->U carry it. Anyone can reproduce the benchmark weights from
    the file and the seed alone.
    """
    rng = np.random.default_rng(seed)
    lo, hi = PACE_WEIGHT_RANGE
    return rng.integers(lo, hi + 1, size=m, dtype=np.int64)


def _parse_pace_slow(data: bytes, path: str) -> tuple[int, np.ndarray, np.ndarray]:
    check_line_lengths(data, path)
    n = m = None
    p_line = 0
    rows: list[tuple[int, int]] = []
    lines: list[int] = []
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        tok = raw.split()
        if not tok or tok[0][:1] == b"c":
            continue
        if tok[0] == b"p":
            n, m = _p_line(tok, raw, data, path, lineno, b"tw", "edge", seen=n is not None)
            p_line = lineno
            continue
        if n is None:
            raise MapFormatError(
                "edge before the 'p tw N M' line (missing p line)", path=path, line=lineno
            )
        if len(tok) != 2:
            raise MapFormatError(f"expected 'U V', got {_show(raw)}", path=path, line=lineno)
        u = _int_token(tok[0], "node", path, lineno, lo=1, hi=n + 1)
        v = _int_token(tok[1], "node", path, lineno, lo=1, hi=n + 1)
        rows.append((u, v))
        lines.append(lineno)
    n = _check_count(n, m, len(rows), data, path, p_line, b"tw", "edge")
    return n, np.array(rows, dtype=np.int64).reshape(-1, 2), np.array(lines, dtype=np.int64)


def _parse_pace(data: bytes, path: str) -> tuple[int, np.ndarray, np.ndarray]:
    header, off, skipped = _split_header(data, None)
    p = [line.split() for _, line in header if line.lstrip()[:1] == b"p"]
    ok_p = len(p) == 1 and len(p[0]) == 4 and p[0][1] == b"tw"
    if ok_p and p[0][2].isdigit() and p[0][3].isdigit() and len(p[0][2]) + len(p[0][3]) < 30:
        n, m = int(p[0][2]), int(p[0][3])
        fast = _fast_table(data[off:], 2, None)
        if fast is not None:
            edges, rel = fast
            ok = edges.shape[0] == m and n < WEIGHT_LIMIT
            ok = ok and _implausible(n, m, len(data), "edge") is None
            if ok and m:
                ok = edges.min() >= 1 and edges.max() <= n
            if ok:
                return n, edges, rel + skipped + 1
    return _parse_pace_slow(data, path)


def load_pace(
    path: str | os.PathLike,
    seed: int = 1,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> RoadNetwork:
    """Read a PACE-2016 ``p tw`` graph (``.gr.xz``, ``.gr.gz`` or plain) as a weighted road map.

    Every ``U V`` line is an undirected road: two arcs U->V and V->U with the same weight,
    uniform random in 1..1000 from ``numpy.random.default_rng(seed)`` as
    :func:`pace_weights` states exactly (seed 003 weighted RoadNet-CA the same way).
    ``meta`` records the seed. Arc order in the input: all forward arcs, then all reverse
    arcs (build_network sorts them into CSR rows anyway).
    """
    path = os.fspath(path)
    n, edges, lines = _read_parsed(
        path, _parse_pace, progress, cancel, "decompressing", 0.3, "parsing edges"
    )
    m = edges.shape[0]
    w = pace_weights(m, seed)
    _report(progress, 0.6, "building the network")
    u, v = edges[:, 0] - 1, edges[:, 1] - 1
    net = build_two_way(
        u,
        v,
        w,
        lines,
        n=n,
        name=_stem(path),
        source_path=path,
        meta={
            "format": "pace",
            "weight_seed": int(seed),
            "weights": "numpy default_rng(seed).integers(1, 1001, size=M, dtype=int64); "
            "road i (file order) -> both arcs",
            "roads": int(m),
        },
    )
    _report(progress, 1.0, "done")
    return net


def _stem(path: str) -> str:
    name = Path(path).name
    for ext in (".gr.xz", ".gr.gz", ".gr"):
        if name.lower().endswith(ext):
            return name[: -len(ext)]
    return name
