"""``signpost bench first``: what a fresh install costs per command, cold and warm.

Each row runs one ``signpost`` command on a map (default: the bundled sample map) in a new
Python process, twice: **cold** with ``NUMBA_CACHE_DIR`` on an empty temporary folder and
an empty map cache (``SIGNPOST_CACHE_DIR``), as on a fresh install, then **warm** with the
folders the cold run filled. The child times where it goes: ``import`` (the command's module
and ``gpu_core``: numba included), ``load`` (the map: cold parses the file and writes the
cache entry), ``command`` (``app.cli.main``: the map read back from the cache, compilation
and compute). ``compile`` is cold command minus warm command (numba compiling, and caches
a first run fills); ``total`` is the whole process (interpreter start included). Backends:
``cpu``, and ``cupy`` where CuPy and a GPU work (the row says why not otherwise).
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
    ("billboards -k 5", "billboards", ["--backend", "{b}", "-k", "5", "{m}"]),
    ("isochrones", "isochrones", ["--backend", "{b}", "--profile", "walk", "--from", P1,
                                  "--minutes", "2,5", "--out", "{d}/iso.geojson", "{m}"]),
]

_CHILD = """
import json, sys, time, importlib, io, contextlib
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
json.dump({"import": t1 - t0, "load": t2 - t1, "command": t3 - t2, "rc": rc}, open(sys.argv[1], "w"))
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


def measure(row: tuple[str, str, list[str]], backend: str, mp: str) -> dict:
    """One row: cold then warm, each in a new process (see the module's text)."""
    name, cmd, args = row
    with tempfile.TemporaryDirectory(prefix="signpost-first-") as d:
        Path(d, "from.csv").write_text(FROM)
        Path(d, "to.csv").write_text(TO)
        argv = [a.format(b=backend, m=mp, d=d) for a in args]
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(d, "numba")),
                   SIGNPOST_CACHE_DIR=str(Path(d, "maps")), QT_QPA_PLATFORM="offscreen",
                   PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
        cold = _child(Path(d, "t.json"), cmd, mp, argv, env)
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


def table(rows: list[dict], label: str, mp: str) -> str:
    head = [f"`signpost bench first` on {Path(mp).name}; {label or platform.node()}; "
            f"Python {platform.python_version()}, {os.cpu_count()} cores", "",
            "| command | backend | cold total s | cold import s | cold load s | compile s "
            "| warm command s | warm total s | cold ≤ 5 s |", "|---|---|---|---|---|---|---|---|---|"]
    return "\n".join(head + [_line(r) for r in rows]) + "\n"


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
