"""What the sub-command modules share: one way to add a command with the map, search and
backend arguments, to open its map, and small formatting helpers. The work itself is in
``app.jobs``; nothing here imports Qt.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable

from app.cli.errors import CliError
from app.jobs.common import compile_clock  # noqa: F401 (route and billboards read it here)
from app.jobs.maps import gis_options
from app.jobs.maps import open_map as load

PROFILE_HELP = (
    "weight profile: length (decimetres), walk, drive or multimodal (deciseconds); "
    "default length for geographic maps; omit it for DIMACS/PACE graphs (their weights "
    "come from the file)"
)
BACKEND_HELP = "compute backend (default auto: the GPU when one is usable)"
SNAP_HELP = "farthest a LON,LAT point may lie from a road, metres (default 1000)"


def add_command(sub, name: str, run: Callable, help: str, description: str | None = None, *,
                map_file: bool = True, raw: bool = False) -> argparse.ArgumentParser:
    """The sub-parser of ``signpost NAME`` running ``run(args)``; ``map_file`` adds MAP and
    the map options (:func:`add_map_arguments`); ``raw`` keeps the description's layout."""
    kw = {"formatter_class": argparse.RawDescriptionHelpFormatter} if raw else {}
    from app.cli import add_output_arguments

    p = sub.add_parser(name, help=help, description=description, **kw)
    add_output_arguments(p)
    if map_file:
        add_map_arguments(p)
    p.set_defaults(func=run)
    return p


def add_map_arguments(p: argparse.ArgumentParser, *, profile: bool = True) -> None:
    """MAP and the options of how to read it, shared by every command that reads a map
    (:func:`map_options` passes them on)."""
    p.add_argument("map", metavar="MAP", help="map file (.osm.pbf, .osm, .gr, .graphml, ...) "
                   "or a pgRouting table: postgresql://[user@]host/db?table=ways")
    if profile:
        p.add_argument("--profile", default=None, help=PROFILE_HELP)
    p.add_argument("--contract", action="store_true", help="merge degree-2 chains on load")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the load cache")
    add_gis_arguments(p)


def add_gis_arguments(p: argparse.ArgumentParser) -> None:
    """--layer, --crs, --weight, --weight-unit, --split-crossings (how to read a GIS file)."""
    g = p.add_argument_group("GIS files")
    g.add_argument("--layer", metavar="NAME", help="the line layer to read (default: the "
                   "file's only line layer)")
    g.add_argument("--crs", metavar="CRS", help="the coordinates' reference system (EPSG:N, "
                   "PROJ string or WKT), overriding the file's")
    g.add_argument("--weight", metavar="COLUMN", help="an edge attribute as the cost "
                   "(travel_time: seconds, length: metres)")
    g.add_argument("--weight-unit", choices=("s", "min", "h", "m", "km"),
                   help="the unit of the --weight column")
    g.add_argument("--split-crossings", action="store_true",
                   help="also join lines where they cross (not only at shared vertices)")
    g.add_argument("--sql", metavar="QUERY", help="a postgresql:// MAP without ?table=: a "
                   "SELECT returning pgRouting's columns (id, source, target, cost, "
                   "reverse_cost[, geometry]), run in a READ ONLY transaction")


def add_backend_argument(p: argparse.ArgumentParser, help: str = "compute backend") -> None:
    from gpu_core.backend import BACKENDS

    p.add_argument("--backend", default="auto", choices=BACKENDS, help=help)


def add_snap_argument(p: argparse.ArgumentParser, help: str = SNAP_HELP) -> None:
    p.add_argument("--max-snap", type=_snap_limit, default=1000.0, metavar="M", help=help)


def add_search_arguments(p: argparse.ArgumentParser) -> None:
    """--strategy, --backend, --max-snap (route and sssp), and LON,LAT points that start
    with a minus sign."""
    from gpu_core.sssp import STRATEGIES

    p.add_argument(
        "--strategy", default="auto", choices=STRATEGIES, help="SSSP strategy (default auto)"
    )
    add_backend_argument(p, "compute backend (default auto)")
    add_snap_argument(p)
    allow_negative_points(p)


def _snap_limit(text: str) -> float:
    """--max-snap: metres, a number >= 0 (inf allowed); argparse reports anything else."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of metres") from None
    if not v >= 0:  # also refuses NaN
        raise argparse.ArgumentTypeError(f"{text!r}: give a distance of 0 metres or more")
    return v


_NEGATIVE_POINT = re.compile(r"^-\d+$|^-\d*\.\d+$|^-[\d.]+(?:[eE][-+]?\d+)?\s*,\s*[-+]?[\d.]")


def allow_negative_points(p: argparse.ArgumentParser) -> None:
    """Let ``--from -73.98,40.73`` through: argparse would take "-73.98,40.73" for an
    option (its negative-number rule only knows plain numbers). Western longitudes are
    common, so the parser's rule is widened to LON,LAT pairs; ``--from=...`` works too."""
    if hasattr(p, "_negative_number_matcher"):
        p._negative_number_matcher = _NEGATIVE_POINT


def map_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of ``app.jobs.maps.open_map`` that ``args`` gives."""
    return {
        "profile": getattr(args, "profile", None),
        "contract": getattr(args, "contract", False),
        "use_cache": not getattr(args, "no_cache", False),
        **gis_options(args),
    }


def map_from_args(args: argparse.Namespace):
    """Load ``args.map`` with the map options of ``args`` (:func:`add_map_arguments`), with a
    progress bar (``app.progress``); ``args.timings["load_s"]`` gets the seconds taken.
    With ``--scenario`` / ``--close`` (:func:`add_edit_arguments`) the edited map is
    returned (every point then snaps on it) and ``args.edits`` holds the arcs changed."""
    from app.progress import step

    edits = edit_arguments(args)  # bad specs and files fail before the map loads
    penalties = turn_penalty_argument(args)  # and a bad --turn-penalty
    t0 = time.perf_counter()
    from maps.postgis.conn import is_db_uri

    shown = args.map if is_db_uri(args.map) else os.path.basename(args.map)
    with step(f"loading {shown}") as p:
        net = load(secret(args, "map"), **map_options(args), progress=p)
    timings(args)["load_s"] = time.perf_counter() - t0
    for note in net.meta.get("load_warnings", ()):  # e.g. float weights rounded to int32
        print(f"signpost {args.command}: warning: {note}", file=sys.stderr)
    if edits is not None:
        from app.jobs.edits import apply_edits
        from osutil.small_pages import small_pages

        args.unedited = net  # the map the edits apply to (its route index serves them)
        t0 = time.perf_counter()
        with step("applying edits") as p:
            p(None, f"{len(edits)} edit{'s' * (len(edits) != 1)}")
            with small_pages():  # a new process's fresh arrays (osutil.small_pages)
                net, args.edits = apply_edits(net, edits, backend="cpu",
                                              max_snap_m=getattr(args, "max_snap", 1000.0))
        timings(args)["edits_s"] = time.perf_counter() - t0
    if penalties is not None:
        net = with_penalties(args, net, penalties)
    return net


def add_turn_penalty_argument(p: argparse.ArgumentParser) -> None:
    """--turn-penalty left=N,right=N,u=N (``maps.model.turn_penalties``; off by default)."""
    p.add_argument("--turn-penalty", default=None, metavar="left=N,right=N,u=N",
                   help="add N cost units to each left turn, right turn or u-turn (any of "
                        "the three; drive maps with coordinates; default: no penalty)")


def turn_penalty_argument(args: argparse.Namespace) -> dict | None:
    """The penalties of ``--turn-penalty`` (None when not given); CliError naming the bad part."""
    text = getattr(args, "turn_penalty", None)
    if text is None:
        return None
    from maps.model.turn_penalties import parse_penalties

    try:
        return parse_penalties(text)
    except ValueError as exc:
        raise CliError(f"--turn-penalty {exc}") from None


def with_penalties(args: argparse.Namespace, net, penalties: dict):
    """``net`` with the turn penalties (``drive`` maps with coordinates only)."""
    from maps.model.turn_penalties import with_turn_penalties

    if net.profile != "drive" or not net.has_coordinates:
        why = f"profile {net.profile}" if net.has_coordinates else "no coordinates"
        raise CliError(f"--turn-penalty: turns need a drive map with coordinates "
                       f"(--profile drive; this map: {why})")
    t0 = time.perf_counter()
    try:
        net = with_turn_penalties(net, penalties)
    except ValueError as exc:
        raise CliError(f"--turn-penalty: {exc}") from None
    timings(args)["turn_penalty_s"] = time.perf_counter() - t0
    return net


def add_edit_arguments(p: argparse.ArgumentParser) -> None:
    """--close SPEC (repeatable) and --scenario FILE.geojson: what-if edits applied to the
    map before the work (``app.jobs.edits``; :func:`map_from_args` applies them)."""
    from resources import option_help

    p.add_argument("--close", action="append", default=None, metavar="SPEC",
                   help=option_help("close"))
    p.add_argument("--scenario", default=None, metavar="FILE.geojson",
                   help=option_help("scenario"))
    p.add_argument("--ban-turn", action="append", default=None, dest="ban_turn",
                   metavar="FROM_WAY,VIA_NODE,TO_WAY", help=option_help("ban_turn"))
    p.add_argument("--lift-turn", action="append", default=None, dest="lift_turn",
                   metavar="FROM_WAY,VIA_NODE,TO_WAY", help=option_help("lift_turn"))


def edit_arguments(args: argparse.Namespace) -> list | None:
    """The edits of ``--scenario``, ``--close``, ``--ban-turn`` then ``--lift-turn``, in
    order; None without any (the map is then used as loaded). EditError naming the bad
    spec or feature."""
    close = getattr(args, "close", None)
    scenario = getattr(args, "scenario", None)
    bans, lifts = getattr(args, "ban_turn", None), getattr(args, "lift_turn", None)
    if not (close or bans or lifts) and scenario is None:
        return None
    from app.jobs.edits import parse_close, parse_turn, read_scenario

    edits = list(read_scenario(scenario)) if scenario is not None else []
    edits += [parse_close(spec) for spec in close or ()]
    edits += [parse_turn(spec, "ban_turn") for spec in bans or ()]
    edits += [parse_turn(spec, "lift_turn") for spec in lifts or ()]
    return edits


def secret(args: argparse.Namespace, name: str) -> str:
    """``args.<name>`` as typed, password included (``app.cli.main`` keeps a database URI's
    password out of ``args.<name>``, which every message prints)."""
    return getattr(args, f"{name}_uri", None) or getattr(args, name)


def warm_up_search(args: argparse.Namespace, *, target: bool, small: bool = False) -> float:
    """Load the numba/CUDA kernels of ``args.strategy`` on ``args.backend`` before the
    search (so that the search time is the search); the seconds go to
    ``args.timings["warmup_s"]``. ``small``: the map is small work
    (``app.jobs.common.small_work``): only what its search runs is warmed."""
    from app.progress import step
    from gpu_core.sssp import warm_up

    with step("warming up") as p:
        p(None, f"{args.strategy} kernels")
        t = warm_up([args.strategy], args.backend, target=target, small_work=small)
    timings(args)["warmup_s"] = t
    return t


def timings(args: argparse.Namespace) -> dict:
    """The command's ``{"load_s", "warmup_s", "search_s"}`` seconds, filled as it runs."""
    if not hasattr(args, "timings"):
        args.timings = {}
    return args.timings


def timings_json(args: argparse.Namespace, **more: float) -> dict:
    """``timings`` for a JSON output: load, warm-up, search and (when measured) the
    compilation inside the search's step (``compile_s``, not in ``search_s``), rounded."""
    t = {**timings(args), **more}
    return {k: round(float(t[k]), 6) for k in ("load_s", "warmup_s", "search_s", "compile_s")
            if k in t}


def fmt_duration(seconds: float) -> str:
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h} h {m:02d} min {s:02d} s" if h else f"{m} min {s:02d} s" if m else f"{s} s"


class Timer:
    """Wall-clock seconds of a block: ``with Timer() as t: ...; t.s``."""

    def __enter__(self) -> Timer:
        self.t0 = time.perf_counter()
        self.s = 0.0
        return self

    def __exit__(self, *exc) -> None:
        self.s = time.perf_counter() - self.t0


INDEX_HELP = (
    "route index (a customizable contraction hierarchy, built once per map and cached; "
    "--close/--scenario re-customize it): auto uses a cached one, and builds one for big "
    "jobs on road-shaped maps; on: always; off: never"
)


def add_index_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", default="auto", choices=("auto", "on", "off"), help=INDEX_HELP)


SEARCH_INDEX_HELP = (
    "search index of --strategy auto (a route index on the map's search keys, built once "
    "per map and cached; same costs and routes): auto uses one built before, on builds it "
    "when missing (minutes on a country), off never"
)


def add_search_index_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", default="auto", choices=("auto", "on", "off"),
                   help=SEARCH_INDEX_HELP)



def edits_note(args: argparse.Namespace) -> str:
    """"; edits changed N arcs" for a summary line when --close/--scenario were given."""
    n = getattr(args, "edits", None)
    return "" if n is None else f"; edits changed {n} arc{'s' * (n != 1)}"
