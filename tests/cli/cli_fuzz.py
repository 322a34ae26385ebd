"""The CLI argument fuzzer shared by ``tests/cli/test_cli_fuzz.py`` (a modest count, in the
suite) and ``scripts/fuzz_cli.py`` (1,000+ argument sets per command).

Every command runs in-process through ``app.cli.main`` with hypothesis-drawn argument
values: random numbers, NaN, inf, huge and negative values, odd strings, and odd file
names (missing, a directory, non-UTF-8, very long, binary, a compression bomb, a symlink;
issue 40: headers claiming more than the file holds, Shapefile companions that are FIFOs,
devices or garbage), and a cache folder of FIFOs and garbage (:func:`make_cache`).
A run passes when it ends with exit status 0 or 2, prints no traceback, and a status 2
ends with one ``error:`` line (argparse's own errors come after its usage lines). A run
still going after TIME_LIMIT_S (a valid but large request, e.g. 15 million generated
nodes) is stopped and counted as slow, apart from the failures.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import lzma
import os
import shutil
import signal
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

FIX = Path(__file__).resolve().parents[1] / "fixtures"
TIME_LIMIT_S = 30  # a run longer than this is stopped and counted as slow


# ---- the files an argument may name ---------------------------------------------------------
def make_files(root: Path) -> dict[str, list[str]]:
    """Map files, point files, areas and output names under ``root``, by role."""
    (root / "o").mkdir(parents=True, exist_ok=True)
    odd = root / "odd"
    odd.mkdir(exist_ok=True)
    long_dir = root / ("d" * 200) / ("e" * 200)
    long_dir.mkdir(parents=True, exist_ok=True)
    w = {}
    for name, data in {
        "tiny.gr": (FIX / "dimacs" / "tiny.gr").read_bytes(),
        "tiny.co": (FIX / "dimacs" / "tiny.co").read_bytes(),
        "g.graphml": (FIX / "graphml" / "osmnx_small.graphml").read_bytes(),
        "v.geojson": (FIX / "vector" / "small.geojson").read_bytes(),
        "s.osm": (FIX / "osm" / "small.osm").read_bytes(),
        "bin.gr": bytes(range(256)) * 4,
        "empty.gr": b"",
        "bomb.gr.gz": gzip.compress(b"c " + b"x" * (3 << 20)),  # 3 MB line from 3 KB
        "pts.csv": b"node\n1\n2\n3\n",
        "ll.csv": b"lon,lat\n10.0,50.0\n1e308,50\n",
        "nan.csv": b"lon,lat\nnan,inf\n",
        "demand.csv": b"node,weight\n1,1e200\n2,-5\n",
        "demand_ok.csv": b"node,weight\n1,2\n3,1\n",
        "area.geojson": b'{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}',
        "nan_area.geojson": b'{"type":"Polygon","coordinates":[[[NaN,0],[1,0],[1,1],[0,0]]]}',
        "deep_area.geojson": b'{"type":"Polygon","coordinates":' + b"[" * 5000 + b"]" * 5000 + b"}",
        "bigint.geojson": b'{"type":"FeatureCollection","features":[{"type":"Feature","id":'
                          + b"9" * 5000 + b',"geometry":null}]}',
        "scen.geojson": b'{"type":"FeatureCollection","features":[{"type":"Feature",'
                        b'"properties":{"action":"close","nodes":[1,2]},"geometry":null}]}',
        "scen_bad.geojson": b'{"type":"FeatureCollection","features":[{"type":"Feature",'
                            b'"properties":{"action":"set_cost","way":1,"value":1e400},'
                            b'"geometry":null}]}',
        "scen_add.geojson": b'{"type":"FeatureCollection","features":[{"type":"Feature",'
                            b'"properties":{"action":"add","value":3},"geometry":{"type":'
                            b'"LineString","coordinates":[[10.0005,50.0],[10.0,50.001]]}}]}',
    }.items():
        p = root / name
        p.write_bytes(data)
        w[name] = str(p)
    odd_maps = _header_and_companion_maps(root)
    bad_name = os.fsdecode(b"\xff\xfe-map.gr")
    (root / bad_name).write_bytes((FIX / "dimacs" / "tiny.gr").read_bytes())
    (long_dir / "long.gr").write_bytes((FIX / "dimacs" / "tiny.gr").read_bytes())
    link = root / "link.csv"
    if not link.exists():
        link.symlink_to(root / "pts.csv")
    common = [str(root / "missing.gr"), str(odd), "", "-", str(root / bad_name),
              str(long_dir / "long.gr"), str(root / ("x" * 300 + ".gr"))]
    maps = [w["tiny.gr"], w["g.graphml"], w["v.geojson"], w["s.osm"], w["bin.gr"],
            w["empty.gr"], w["bomb.gr.gz"], w["bigint.geojson"]] + odd_maps + common
    points = [w["pts.csv"], w["ll.csv"], w["nan.csv"], w["bin.gr"], str(link)] + common
    areas = [w["area.geojson"], w["nan_area.geojson"], w["deep_area.geojson"],
             w["bigint.geojson"]] + common
    demands = [w["demand.csv"], w["demand_ok.csv"], w["nan.csv"]] + common
    outs = [str(root / "o" / "out.csv"), str(odd / "out.csv"), str(odd / "out.npy"),
            str(odd / "out.geojson"), str(odd / "out.gr"), str(odd / "out.spn"),
            str(odd / "out.txt"), str(long_dir / "out.csv"), str(odd), str(link),
            os.path.join(str(odd), os.fsdecode(b"\xff-out.csv"))]
    scenarios = [w["scen.geojson"], w["scen_add.geojson"], w["scen_bad.geojson"],
                 w["bigint.geojson"], w["area.geojson"], w["deep_area.geojson"]] + common
    shots = [str(root / "o" / "shot.png"), str(odd / "shot.png"), str(root / "o" / "shot.jpg"),
             str(root / "missing" / "shot.png"), str(odd), str(long_dir / "shot.png")]
    settings = [str(root / "o" / "s.ini"), str(odd / "s.ini"), w["bin.gr"],
                str(root / "missing" / "s.ini")]
    folders = [str(root / "o"), str(odd / "bench"), str(long_dir), w["pts.csv"],
               str(root / "missing" / "bench")]
    return {"map": maps, "points": points, "area": areas, "demand": demands, "out": outs,
            "scenario": scenarios, "shot": shots, "settings": settings, "folder": folders}


def _header_and_companion_maps(root: Path) -> list[str]:
    """Maps whose header claims what the file cannot hold (issue 40: a small .gr.xz claiming
    20M nodes, a p line with more arcs than bytes) and Shapefiles whose companions are a
    FIFO, /dev/urandom, too big or garbage: each must be one line, never a hang."""
    out = []
    claim = root / "claim.gr.xz"  # 1.5 MB of comments in 2 KB, 20M nodes, one edge
    if not claim.exists():
        claim.write_bytes(lzma.compress(
            (("c " + "x" * 98 + "\n") * 15_000 + "p tw 20000000 1\n1 2\n").encode()))
    arcs = root / "arcs.gr"
    arcs.write_bytes(b"p sp 5 99999999\na 1 2 3\n")
    out += [str(claim), str(arcs)]
    for stem, part, make in (("fifo", ".shx", "fifo"), ("urand", ".prj", "urandom"),
                             ("bigprj", ".prj", "big"), ("junk", ".dbf", "junk")):
        shp = root / f"{stem}.shp"
        shp.write_bytes(b"\x00\x00\x27\x0a" + bytes(96))
        c = root / f"{stem}{part}"
        if c.exists() or c.is_symlink():
            c.unlink()
        if make == "fifo" and hasattr(os, "mkfifo"):
            os.mkfifo(c)
        elif make == "urandom" and os.path.exists("/dev/urandom"):
            c.symlink_to("/dev/urandom")
        elif make == "big":
            c.write_bytes(b"G" * (2 << 20))
        else:
            c.write_bytes(bytes(range(256)) * 8)
        out.append(str(shp))
    return out


def make_cache(root: Path) -> str:
    """A cache folder whose every entry for tiny.gr (its map, route index and topology) is
    replaced by a FIFO, beside garbage entries, a partial save, an entry linked to
    /dev/urandom and a folder named like an entry (issue 40): commands must rebuild, never
    hang. The folder's path."""
    from app.cli import main

    cache = root / "cache"
    shutil.rmtree(cache, ignore_errors=True)  # anew each time: never write into a FIFO
    cache.mkdir(parents=True)
    old = os.environ.get("SIGNPOST_CACHE_DIR")
    os.environ["SIGNPOST_CACHE_DIR"] = str(cache)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["sssp", str(FIX / "dimacs" / "tiny.gr"), "--source", "node:1", "--index", "on",
                  "--backend", "cpu", "--if-exists", "replace", "--out", str(root / "warm.csv")])
    finally:
        if old is None:
            os.environ.pop("SIGNPOST_CACHE_DIR", None)
        else:
            os.environ["SIGNPOST_CACHE_DIR"] = old
    for p in list(cache.iterdir()):
        if p.is_file() and hasattr(os, "mkfifo"):
            p.unlink()
            os.mkfifo(p)
    (cache / ("f" * 40 + ".spn")).write_bytes(b"SPN garbage")
    (cache / ("ch-" + "e" * 32 + ".npz")).write_bytes(b"PK\x03\x04 not a zip")
    (cache / ("ch-" + "d" * 32 + ".npz.1.tmp.npz")).write_bytes(b"partial")
    (cache / ("cch-topo-" + "c" * 32 + ".npz")).mkdir()
    if os.path.exists("/dev/urandom"):
        (cache / ("ch-" + "a" * 32 + ".npz")).symlink_to("/dev/urandom")
    return str(cache)


# ---- values ----------------------------------------------------------------------------------
SPECIAL = ["0", "1", "-1", "2", "3", "nan", "NaN", "inf", "-inf", "1e200", "-1e200", "1e308",
           "1e-300", "9" * 30, "-" + "9" * 30, str(2**31), str(2**63), str(2**64), "0.5",
           "1.7", "0x10", "", " ", "abc", "\u00e9\u4e2d", "1,2", "node:1", "node:1.7",
           "node:abc", "node:" + "9" * 25, "node:9000000000000000000", "node:-1",
           "24.94,60.17", "10.0,50.0", "1e308,60", "nan,nan", "200,100", "-0", "1_000",
           "\x00", "--json", "-k"]


# --dask values: clusters kept local and small (run_cli caps them at MAX_DASK_WORKERS and
# the connection at DASK_CONNECT_S); the odd ones must each be one line, no password
DASK_GOOD = ["local:1", "local:2", "local"]
DASK_ODD = ["", " ", "tcp://u:s3cret@127.0.0.1:1", "u:s3cret@127.0.0.1:1", "http://127.0.0.1:1",
            "tls://127.0.0.1:1", "inproc://x", "ws://h:1", "ucx://h:1", "local:0", "local:99999",
            "local:\u0661", "local:-2", "local:1.5", "tcp://127.0.0.1:1", "127.0.0.1:99999",
            "tcp://[::1]:1", "tcp://[::1", "tcp://h:1/x", "tcp://:1", "tcp://127.0.0.1:0",
            "tcp://127.0.0.1", "local:" + "9" * 30]
MAX_DASK_WORKERS = 2
DASK_CONNECT_S = 3.0
SECRET = "s3cret"


def numbers() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(-(2**70), 2**70).map(str),
        st.integers(-5, 20).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.floats(-1e3, 1e3).map(str),
    )


def value() -> st.SearchStrategy[str]:
    """One argument value: a special case, a number, or a short odd string."""
    text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
    return st.one_of(st.sampled_from(SPECIAL), numbers(), text)


def point() -> st.SearchStrategy[str]:
    nums = st.floats(allow_nan=True, allow_infinity=True).map(repr)
    return st.one_of(
        st.sampled_from(["node:1", "node:2", "node:3", "node:5", "node:01"]),
        st.builds(lambda a, b: f"{a},{b}", nums, nums),
        st.builds(lambda i: f"node:{i}", st.integers(-(2**70), 2**70)),
        value(),
    )


@dataclass
class Command:
    """How to fuzz one command: fixed words, then options with a strategy of valid values
    (None: a flag). Each run gives one option (or the map) an odd value, or none."""

    words: list[str]  # e.g. ["route"] or ["generate", "ring"]
    map_arg: bool  # takes a MAP positional
    options: dict[str, st.SearchStrategy[str] | None]
    required: list[str] = field(default_factory=list)
    odd: dict[str, st.SearchStrategy[str]] = field(default_factory=dict)  # beyond value()


def commands(files: dict[str, list[str]]) -> dict[str, Command]:
    S = st.sampled_from
    common = {"--profile": S(["length", "walk", "drive"]), "--contract": None,
              "--no-cache": None}
    search = {"--strategy": S(["auto", "delta", "eval_dijkstra", "conventional", "selection",
                               "adaptive", "bellman_ford_queue"]),
              "--backend": S(["cpu"]), "--max-snap": S(["1000", "0", "inf", "5e5"])}
    good_pt = S(["node:1", "node:2", "node:3", "node:5", "24.94,60.17", "10.0,50.0"])
    files_odd = {"--out": S(files["out"]), "--from": S(files["points"]),
                 "--to": S(files["points"]), "--within": S(files["area"]),
                 "--demand": S(files["demand"]), "MAP": S(files["map"])}
    pts = S(files["points"][:2])
    outs = S(files["out"][:3])
    # what-if edits (app.jobs.edits): valid specs of the fixtures, odd values, odd files
    edits = {"--close": S(["nodes:1,2", "arc:1,2", "way:100", "way:10", "10.0005,50.0",
                           "139.7005,35.68", "nodes:101,102"]),
             "--scenario": S(files["scenario"][:2]),
             # turn edits (issue 39): ways and nodes of the fixtures, or none that fit
             "--ban-turn": S(["100,2,101", "10,1,11", "1,1,1"]),
             "--lift-turn": S(["100,2,101", "10,1,11"])}
    files_odd = {**files_odd, "--scenario": S(files["scenario"]),
                 "--close": st.one_of(point(), S(["nodes:1", "arc:1,1", "way:", "way:x",
                                                  "nodes:1,99", "way:" + "9" * 30])),
                 "--ban-turn": st.one_of(value(), S(["1,2", "x,1,2", "1,,2", ",,",
                                                     "9" * 30 + ",1,2", "1,2,3,4"]))}
    dask_odd = {"--dask": st.one_of(S(DASK_ODD), value()), **files_odd}
    return {
        "info": Command(["info"], True, {**common, "--json": None}, odd=files_odd),
        "route": Command(["route"], True, {**common, "--from": good_pt, "--to": good_pt,
                                           **search, "--json": None, **edits,
                                           "--index": S(["auto", "on", "off"])},
                         ["--from", "--to"],
                         odd={"--from": point(), "--to": point(), **files_odd}),
        "sssp": Command(["sssp"], True, {**common, "--source": good_pt, "--out": outs,
                                         **search, **edits,
                                         "--index": S(["auto", "on", "off"])},
                        ["--source", "--out"],
                        odd={"--source": point(), **files_odd}),
        "billboards": Command(["billboards"], True, {
            **common, "-k": S(["1", "2", "3"]), "--mode": S(["hops", "weighted"]),
            "--backend": S(["cpu"]), "--method": S(["auto", "exact", "sampled"]),
            "--epsilon": S(["0.5", "0.9"]), "--delta": S(["0.1", "0.5"]),
            "--seed": st.integers(0, 2**32).map(str),
            "--candidates": S(["all", "road", "no-rail"]), "--within": S(files["area"][:1]),
            "--demand": S(files["demand"][1:2]), "--fixed": S(["1", "2,3", "node:1"]),
            "--json": None, "--quiet": None, **edits}, ["-k"], odd=files_odd),
        "matrix": Command(["matrix"], True, {**common, "--from": pts, "--to": pts,
                                             "--out": outs, "--backend": S(["cpu"]),
                                             "--max-snap": S(["1000", "inf"]),
                                             "--chunk": S(["1", "2", "1000"]), **edits},
                          ["--from", "--to", "--out"], odd=files_odd),
        "mst": Command(["mst"], True, {**common, "--backend": S(["cpu"]),
                                       "--out": S([files["out"][0], files["out"][3]]),
                                       "--method": S(["boruvka", "kruskal"]),
                                       "--if-exists": S(["fail", "replace", "append"]),
                                       "--json": None}, odd=files_odd),
        "pagerank": Command(["pagerank"], True, {
            **common, "--out": outs, "--damping": S(["0.85", "0.5", "0"]),
            "--tol": S(["1e-6", "1e-3"]), "--max-iter": S(["10", "100"]),
            "--backend": S(["cpu"]), "--method": S(["framework", "direct"]),
            "--if-exists": S(["fail", "replace", "append"]),
            "--json": None}, ["--out"], odd=files_odd),
        "dask": Command(["matrix"], True, {
            "--from": pts, "--to": pts, "--out": outs, "--backend": S(["cpu"]),
            "--dask": S(DASK_GOOD), "--chunk": S(["1", "3"]), "-q": None},
            ["--from", "--to", "--out", "--backend", "--dask"], odd=dask_odd),
        "dask-billboards": Command(["billboards"], True, {
            "-k": S(["1", "2"]), "--method": S(["sampled"]), "--epsilon": S(["0.5", "0.9"]),
            "--delta": S(["0.5"]), "--seed": st.integers(0, 2**32).map(str),
            "--backend": S(["cpu"]), "--dask": S(DASK_GOOD), "--json": None},
            ["-k", "--method", "--backend", "--dask"], odd=dask_odd),
        **bench_commands(files),
        "gui": Command(["gui"], True, {
            "--screenshot": S(files["shot"][:1]), "--settings": S(files["settings"][:1]),
            "--backend": S(["cpu"]), "--profile": S(["length", "walk", "drive"]),
            "--strategy": S(["auto", "delta", "selection"]), "--size": S(["640x480", "800x600"]),
            "--max-snap": S(["1000", "inf"]), **edits},
            ["--screenshot", "--settings", "--backend"],
            odd={"--screenshot": S(files["shot"]), "--settings": S(files["settings"]),
                 "--size": st.one_of(S(["0x0", "1x1", "99999x99999", "-5x5", "axb", "800"]),
                                     value()), **files_odd}),
        "cache": Command(["cache"], False, {"--json": None, "--clear": None}),
        "generate": Command(["generate", "ring"], False, {
            "--out": S([files["out"][4], files["out"][5]]),
            "--nodes": S(["10", "25", "64"]), "--seed": st.integers(0, 2**32).map(str),
            "--arcs-per-node": S(["2", "4"]), "--json": None,
            "--if-exists": S(["fail", "replace", "append"])}, ["--out"],
            odd={"--out": S(files["out"])}),
    }


def bench_commands(files: dict[str, list[str]]) -> dict[str, Command]:
    """The light benchmarks on the fixture maps (never --write-doc/--doc: they write into
    the checkout; never the generated Kanto map: minutes)."""
    S = st.sampled_from
    maps = S(files["map"][:2])
    odd = {"--map": S(files["map"]), "--out": S(files["folder"])}
    return {
        "bench-sssp": Command(["bench", "sssp"], False, {
            "--map": maps, "--sources": S(["1", "2"]), "--backend": S(["cpu"]),
            "--strategies": S(["delta", "auto,selection", "adaptive:time"]),
            "--seed": st.integers(0, 2**32).map(str), "--out": S(files["folder"][:1]),
            "--budget-s": S(["1", "0.5"]), "--no-figures": None},
            ["--map", "--out", "--backend", "--no-figures"], odd=odd),
        "bench-matrix": Command(["bench", "matrix"], False, {
            "--map": maps, "--sizes": S(["2", "3", "2,3"]), "--backend": S(["cpu"]),
            "--seed": st.integers(0, 2**32).map(str), "--workers": S(["1"]),
            "--budget-s": S(["1", "2"]), "--out": S(files["folder"][:1]), "--no-cch": None,
            "--no-scipy": None}, ["--map", "--out", "--backend", "--no-cch", "--workers"],
            odd=odd),
        "bench-load": Command(["bench", "load"], False, {
            "--map": maps, "--repeat": S(["1"]), "--sources": S(["1", "2"]),
            "--no-kanto": None, "--seed": st.integers(0, 2**32).map(str),
            "--no-bf-phases": None}, ["--map", "--no-kanto", "--repeat"], odd=odd),
    }


@st.composite
def argv_for(draw, cmd: Command, files: dict[str, list[str]]
             ) -> tuple[list[str], str | None, str | None]:
    """(argument list for ``cmd``, the odd option, its value): required options always, others
    at random, and at most one option (or the map, or the generator kind) given an odd
    value."""
    names = [o for o, s in cmd.options.items() if s is not None]
    odd_value = None
    odd = draw(st.one_of(st.none(), st.sampled_from(names + ["MAP", "KIND"])))
    argv = list(cmd.words)
    if cmd.words[0] == "generate":
        argv[1] = draw(st.sampled_from(["ring", "grid", "random", "rmat", "complete"]))
        if odd == "KIND":
            argv[1] = odd_value = draw(value())
    if cmd.map_arg:
        good = st.sampled_from(files["map"][:4])
        argv.append(draw(cmd.odd.get("MAP", value()) if odd == "MAP" else good))
        if odd == "MAP":
            odd_value = argv[-1]
    for opt, strategy in cmd.options.items():
        if opt != odd and opt not in cmd.required and not draw(st.booleans()):
            continue
        if strategy is None:
            argv.append(opt)
            continue
        v = draw(strategy if opt != odd else
                 st.one_of(cmd.odd[opt], value()) if opt in cmd.odd else value())
        argv.append(f"{opt}={v}")  # "=": values may start with '-'
        if opt == odd:
            odd_value = v
    return argv, odd, odd_value


# ---- running ---------------------------------------------------------------------------------
@dataclass
class Outcome:
    argv: list[str]
    rc: int | None
    err: str
    problem: str | None  # None: the run behaved
    vague: bool = False  # status 2 whose error line names neither the odd value nor its option
    slow: bool = False  # a valid request stopped after TIME_LIMIT_S (not a crash)


class _Slow(Exception):
    pass


def _alarm(signum, frame):
    raise _Slow()


def names_value(err: str, odd: str | None, odd_value: str | None) -> bool:
    """Whether the error line shows the odd value, the file it names or its option."""
    if odd_value is None:
        return True
    last = err.rstrip("\n").rsplit("\n", 1)[-1]
    shown = [odd if odd and odd.startswith("-") else "", odd_value, repr(odd_value)[1:-1], os.path.basename(odd_value), odd_value[:20],
             repr(odd_value[:20])[1:-1], odd_value.strip()[:20]]
    return any(s and s in last for s in shown) or not odd_value.strip()


@contextlib.contextmanager
def small_dask():
    """``--dask local`` starts at most MAX_DASK_WORKERS workers, and a scheduler address
    is given up after DASK_CONNECT_S, while a fuzzed run lasts."""
    try:
        from app.jobs import distributed as dist
    except ImportError:  # no Dask: --dask says how to install it
        yield
        return
    cores, timeout = dist._cores, dist.CONNECT_TIMEOUT_S
    dist._cores = lambda: min(MAX_DASK_WORKERS, cores())
    dist.CONNECT_TIMEOUT_S = DASK_CONNECT_S
    try:
        yield
    finally:
        dist._cores, dist.CONNECT_TIMEOUT_S = cores, timeout


def run_cli(argv: list[str], odd: str | None = None, odd_value: str | None = None) -> Outcome:
    """``app.cli.main(argv)`` with stdout/stderr captured; what went wrong, if anything."""
    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    rc: int | None = None
    problem = None
    slow = False
    if argv[:1] == ["gui"]:
        # The window runs in a child: an alarm that stops it mid-event-loop would leave this
        # process's QApplication and workers half torn down for the GUI tests after it.
        rc, text, slow = _run_child(argv)
        out = io.StringIO()
        err = io.StringIO(text)
        return _judge(argv, rc, out, err, None, slow, odd, odd_value)
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), small_dask():
            try:
                rc = main(argv)
            except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
                rc = exc.code if isinstance(exc.code, int) else 2
    except _Slow:
        slow = True
    except BaseException as exc:  # noqa: BLE001 - any escape is what we look for
        problem = "traceback: " + "".join(traceback.format_exception_only(type(exc), exc)).strip()
        problem += "\n" + "".join(traceback.format_tb(exc.__traceback__)[-3:])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return _judge(argv, rc, out, err, problem, slow, odd, odd_value)


def _run_child(argv: list[str]) -> tuple[int | None, str, bool]:
    """(exit status, stderr, slow) of ``signpost ARGV`` in a child process."""
    import subprocess
    import sys

    code = "import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))"
    try:
        p = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True,
                           timeout=TIME_LIMIT_S, cwd=os.getcwd(),
                           env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    except subprocess.TimeoutExpired:
        return None, "", True
    return p.returncode, p.stderr, False


def _judge(argv, rc, out, err, problem, slow, odd, odd_value) -> Outcome:
    text = err.getvalue()
    if problem is None and SECRET in text + out.getvalue():
        problem = f"a password is shown: {text[-300:]!r}"
    if problem is None and not slow:
        if rc not in (0, 2):
            problem = f"exit status {rc}"
        elif "Traceback" in text:
            problem = "a traceback on stderr: " + text[text.index("Traceback"):][-1200:]
        elif rc == 2:
            last = text.rstrip("\n").rsplit("\n", 1)[-1]
            if "error" not in last:
                problem = f"status 2 without an error line: {text[-300:]!r}"
    vague = problem is None and rc == 2 and not names_value(text, odd, odd_value)
    return Outcome(argv, rc, text, problem, vague, slow)
