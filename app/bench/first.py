"""``signpost bench first``: what a fresh install costs per command, cold and warm.

Each row runs one ``signpost`` command on a map (default: the bundled sample map) in a new
Python process, twice: **cold** with ``NUMBA_CACHE_DIR`` and ``CUPY_CACHE_DIR`` on empty folders and
an empty map cache (``SIGNPOST_CACHE_DIR``), as on a fresh install, then **warm** with the
folders the cold run filled. The child times where it goes: ``import`` (the command's module
and ``gpu_core``: numba included), ``load`` (the map: cold parses the file and writes the
cache entry), ``command`` (``app.cli.main``: the map read back from the cache, compilation
and compute). ``compile`` is cold command minus warm command (numba compiling, and caches
a first run fills); ``total`` is the whole process (interpreter start included). Backends:
``cpu``, and ``cupy`` where CuPy and a GPU work (the row says why not otherwise).
Each cold row also records numba's compilations (functions asked for, exclusive seconds,
signatures, ``parallel``: the second table). A cold ``matrix --index on`` on a small map
answers by scipy and builds the index in a background process (``app.jobs.index_later``):
the warm run waits for it; the row "built in the command" turns that off.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "maps" / "samples" / "helsinki.osm.pbf"
DOC = ROOT / "docs" / "perf" / "first_contact.md"
P1, P2 = "24.940,60.170", "24.950,60.175"
FROM = "id,lon,lat\na,24.940,60.170\nb,24.945,60.172\nc,24.935,60.168\n"
TO = "id,lon,lat\nx,24.950,60.175\ny,24.938,60.168\nz,24.947,60.166\n"

# (row name, command, arguments after the command; {b} backend, {m} map, {d} work folder)
COMMANDS: list[tuple[str, str, list[str]]] = [
    ("info", "info", ["{m}"]),
    ("route", "route", ["--backend", "{b}", "--from", P1, "--to", P2, "{m}"]),
    ("matrix 3x3", "matrix", ["--backend", "{b}", "--from", "{d}/from.csv", "--to",
                              "{d}/to.csv", "--out", "{d}/m.csv", "{m}"]),
    ("matrix 3x3 --index on", "matrix", ["--backend", "{b}", "--index", "on", "--from",
                                         "{d}/from.csv", "--to", "{d}/to.csv", "--out",
                                         "{d}/mi.csv", "{m}"]),
    ("matrix 3x3 --index on, built in the command", "matrix",
     ["--backend", "{b}", "--index", "on", "--from", "{d}/from.csv", "--to", "{d}/to.csv",
      "--out", "{d}/mb.csv", "{m}"]),
    ("billboards -k 5", "billboards", ["--backend", "{b}", "-k", "5", "{m}"]),
    ("billboards -k 5 --method sampled", "billboards",
     ["--backend", "{b}", "-k", "5", "--method", "sampled", "{m}"]),
    ("route --index on", "route", ["--backend", "{b}", "--index", "on", "--from", P1,
                                   "--to", P2, "{m}"]),
    ("sssp --index on", "sssp", ["--backend", "{b}", "--index", "on", "--source", P1,
                                 "--out", "{d}/s.csv", "{m}"]),
    ("isochrones --index on", "isochrones",
     ["--backend", "{b}", "--index", "on", "--profile", "walk", "--from", P1, "--minutes",
      "2,5", "--out", "{d}/isoi.geojson", "{m}"]),
    ("isochrones", "isochrones", ["--backend", "{b}", "--profile", "walk", "--from", P1,
                                  "--minutes", "2,5", "--out", "{d}/iso.geojson", "{m}"]),
]

# rows measured with these variables: the route index built inside the command, as
# before issue 41's background build (app.jobs.index_later), for its compile time
ROW_ENV = {"matrix 3x3 --index on, built in the command": {"SIGNPOST_INDEX_BACKGROUND": "0"}}
BACKGROUND_WAIT_S = 900.0

_CHILD = r"""
import json, sys, time, importlib, io, contextlib
from numba.core.dispatcher import Dispatcher
compiles, stack, orig = {}, [], Dispatcher.compile
def compile(disp, sig):  # numba's compilations (and cache loads), exclusive seconds each
    t = time.perf_counter(); stack.append(0.0)
    try:
        return orig(disp, sig)
    finally:
        dt = time.perf_counter() - t; inner = stack.pop()
        if stack: stack[-1] += dt
        f = disp.py_func
        c = compiles.setdefault(f.__module__ + "." + f.__qualname__, [0.0, set(), False])
        c[0] += dt - inner; c[1].add(str(sig)); c[2] = bool(disp.targetoptions.get("parallel"))
Dispatcher.compile = compile
nvrtc = []  # CuPy's NVRTC compilations (a fresh machine's GPU rows): [label, seconds]
try:
    import re
    import cupy.cuda.compiler as cc
    # the function CuPy's cache calls: _compile_using_nvrtc_no_warning from CuPy 14 on
    hook = ("_compile_using_nvrtc_no_warning" if hasattr(cc, "_compile_using_nvrtc_no_warning")
            else "compile_using_nvrtc")
    orig_nvrtc = getattr(cc, hook)
    def compile_nvrtc(source, *a, **k):
        t = time.perf_counter()
        try:
            return orig_nvrtc(source, *a, **k)
        finally:
            f = re.search(r'#line 1 "([^"]+)"', source)
            g = re.search(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\([^)]*\)\s+)?(?:void\s+)?(\w+)", source)
            nvrtc.append([f.group(1) if f else (g.group(1) if g else "?"),
                          time.perf_counter() - t])
    setattr(cc, hook, compile_nvrtc)
except ImportError:
    pass
t0 = time.perf_counter()
import app.cli
importlib.import_module("app.cli." + sys.argv[2])
import gpu_core
t1 = time.perf_counter()
from maps.load import load_map
load_map(sys.argv[3])
t2 = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()):
    rc = app.cli.main(["-q", sys.argv[2], *sys.argv[4:]])
t3 = time.perf_counter()
top = sorted(compiles.items(), key=lambda kv: -kv[1][0])[:8]
json.dump({"import": t1 - t0, "load": t2 - t1, "command": t3 - t2, "rc": rc,
           "compiled": len(compiles), "compile_sum": sum(c[0] for c in compiles.values()),
           "top": [[k, round(c[0], 2), len(c[1]), c[2]] for k, c in top],
           "nvrtc": len(nvrtc), "nvrtc_sum": sum(x[1] for x in nvrtc),
           "nvrtc_top": sorted(([k, round(x, 2)] for k, x in nvrtc), key=lambda kv: -kv[1])[:10]},
          open(sys.argv[1], "w"))
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--map", default=str(SAMPLE), metavar="M", help="map file (default: sample)")
    p.add_argument("--backend", action="append", default=None, choices=("cpu", "cupy"),
                   help="backends to measure (repeatable; default cpu and cupy)")
    p.add_argument("--only", action="append", default=None, metavar="ROW",
                   help="rows to run (repeatable; e.g. info, route, 'matrix 3x3')")
    p.add_argument("--doc", default=None, metavar="FILE.md", help="also write the table here")
    p.add_argument("--write-doc", action="store_true", help=f"write the table to {DOC}")
    p.add_argument("--label", default="", help="a note printed above the table (the machine)")


def _child(out: Path, cmd: str, mp: str, argv: list[str], env: dict) -> dict:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", _CHILD, str(out), cmd, mp, *argv], env=env,
                       capture_output=True, text=True)
    total = time.perf_counter() - t0
    if r.returncode != 0 or not out.exists():
        tail = (r.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"exit {r.returncode}: {tail[:120]}", "total": total}
    got = json.loads(out.read_text())
    out.unlink()
    got["total"] = total
    if got.get("rc"):  # the command refused: a row of its error, not of its time
        tail = (r.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": f"exit {got['rc']}: {tail[:120]}", "total": total}
    return got


def _background_done(cache: Path) -> None:
    """Wait for a background index build the cold run started (``app.jobs.index_later``:
    its lock file in the map cache), so the warm run finds what it compiled."""
    lock = cache / "index-warm.lock"
    t0 = time.perf_counter()
    while lock.exists() and time.perf_counter() - t0 < BACKGROUND_WAIT_S:
        time.sleep(0.5)


def measure(row: tuple[str, str, list[str]], backend: str, mp: str) -> dict:
    """One row: cold then warm, each in a new process (see the module's text)."""
    name, cmd, args = row
    with tempfile.TemporaryDirectory(prefix="signpost-first-") as d:
        Path(d, "from.csv").write_text(FROM)
        Path(d, "to.csv").write_text(TO)
        argv = [a.format(b=backend, m=mp, d=d) for a in args]
        # CuPy's kernel cache too: a fresh machine compiles the CUDA sources (NVRTC)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(d, "numba")),
                   CUPY_CACHE_DIR=str(Path(d, "cupy")),
                   SIGNPOST_CACHE_DIR=str(Path(d, "maps")), QT_QPA_PLATFORM="offscreen",
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        env.update(ROW_ENV.get(name, {}))
        cold = _child(Path(d, "t.json"), cmd, mp, argv, env)
        _background_done(Path(d, "maps"))
        warm = _child(Path(d, "t.json"), cmd, mp, argv, env)
    out = {"row": name, "backend": backend, "cold": cold, "warm": warm}
    if "error" not in cold and "error" not in warm:
        out["compile"] = max(0.0, cold["command"] - warm["command"])
    return out


def _line(r: dict) -> str:
    c, w = r["cold"], r["warm"]
    if "skip" in r:
        return f"| {r['row']} | {r['backend']} | {r['skip']} | | | | | | |"
    if "error" in c or "error" in w:
        return f"| {r['row']} | {r['backend']} | {c.get('error') or w.get('error')} | | | | | | |"
    ok = "yes" if c["total"] <= 5.0 else "**no**"
    return (f"| {r['row']} | {r['backend']} | {c['total']:.1f} | {c['import']:.2f} | "
            f"{c['load']:.2f} | {r['compile']:.1f} | {w['command']:.2f} | {w['total']:.2f} | {ok} |")


def where(rows: list[dict]) -> str:
    """Where each cold row's compile time went: numba functions asked for (compiled or
    loaded from the cache), their exclusive seconds summed, the largest eight
    (signatures; PAR: ``parallel=True``)."""
    out = ["| command | backend | functions | seconds summed | largest (s, signatures) |",
           "|---|---|---|---|---|"]
    for r in rows:
        c = r.get("cold") or {}
        if "top" not in c:
            continue
        top = ", ".join(f"`{k.replace('gpu_core.', '')}` {s:.1f}"
                        f"{f' ×{n}' if n > 1 else ''}{' PAR' if par else ''}"
                        for k, s, n, par in c["top"])
        out.append(f"| {r['row']} | {r['backend']} | {c['compiled']} | "
                   f"{c['compile_sum']:.1f} | {top} |")
    gpu = [r for r in rows if (r.get("cold") or {}).get("nvrtc")]
    if gpu:  # CuPy's compilations: our .cu modules by file, CuPy's own kernels by name
        out += ["", "| command | backend | NVRTC compilations | seconds summed | largest (s) |",
                "|---|---|---|---|---|"]
        for r in gpu:
            c = r["cold"]
            top = ", ".join(f"`{k}` {x:.2f}" for k, x in c["nvrtc_top"])
            out.append(f"| {r['row']} | {r['backend']} | {c['nvrtc']} | "
                       f"{c['nvrtc_sum']:.1f} | {top} |")
    return "\n".join(out) + "\n"


def table(rows: list[dict], label: str, mp: str) -> str:
    head = [f"`signpost bench first` on {Path(mp).name}; {label or platform.node()}; "
            f"Python {platform.python_version()}, {os.cpu_count()} cores", "",
            "| command | backend | cold total s | cold import s | cold load s | compile s "
            "| warm command s | warm total s | cold ≤ 5 s |", "|---|---|---|---|---|---|---|---|---|"]
    return "\n".join(head + [_line(r) for r in rows]) + "\n\n" + where(rows)


def run(args: argparse.Namespace) -> int:
    from gpu_core import cupy_status

    backends = args.backend or ["cpu", "cupy"]
    rows = []
    for b in backends:
        usable, why = cupy_status() if b == "cupy" else (True, "")
        for row in COMMANDS:
            if args.only and row[0] not in args.only:
                continue
            if not usable:
                rows.append({"row": row[0], "backend": b, "skip": f"unavailable: {why}",
                             "cold": {}, "warm": {}})
                continue
            r = measure(row, b, args.map)
            rows.append(r)
            print(_line(r), file=sys.stderr, flush=True)
    text = table(rows, args.label, args.map)
    print(text)
    doc = args.doc or (str(DOC) if args.write_doc else None)
    if doc:
        Path(doc).parent.mkdir(parents=True, exist_ok=True)
        with open(doc, "a", encoding="utf-8") as f:
            f.write("\n" + text)
    return 0
