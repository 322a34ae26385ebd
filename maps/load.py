"""Open any supported map file, through the cache when possible.

:data:`FORMATS` is the one table of map formats: how a file is recognised (its name's
ending, then optionally its content), which reader loads it, and whether its weights
come from the file. ``load_map``, ``detect_format``, the cache key (``maps.cache``) and
the "unknown map format" message all read it. A new format is a reader module in
``maps/`` plus one line here.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import MapFormatError, ProfileError, UnknownFormatError
from .model.network import RoadNetwork

# Progress callback: (fraction 0..1, message). Cancel check: returns True to stop.
Progress = Callable[[float, str], None]
Cancel = Callable[[], bool]

PROFILES = ("length", "walk", "drive", "multimodal")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FormatSpec:
    """One map format. Functions are named ``"module:function"`` within ``maps`` and
    imported only when a file needs them (osmium, sqlite3, expat stay unloaded)."""

    kind: str  # detect_format's answer; part of the cache key
    suffixes: tuple[str, ...]  # lower-case endings of the file name
    shown: str  # how the "unknown map format" message lists it
    # reader(path, **options): gets those of load_map's profile, contract, seed, progress
    # and cancel that its signature names.
    reader: str
    own_weights: bool = False  # weights come from the file: profile None or "file" only
    sniff: str | None = None  # (path, kind) -> the kind whose reader reads this content
    companions: str | None = None  # (path) -> other files it reads (their bytes key the cache)
    cached: bool = True  # load_map keeps the result in the .spn cache
    uri: bool = False  # a URI, not a file: the reader gets use_cache and keys its own cache

    def function(self, field: str) -> Callable[..., Any]:
        """The function ``field`` ("reader", "sniff" or "companions") names, imported now."""
        module, name = getattr(self, field).split(":")
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)


# Order: how the "unknown map format" message lists them (no suffix is in two lines).
FORMATS: tuple[FormatSpec, ...] = (
    FormatSpec("osm", (".osm.pbf", ".pbf", ".osm", ".osm.bz2", ".osm.gz"),
               ".osm.pbf, .osm, .osm.bz2", "formats.osm:load_osm"),
    FormatSpec("dimacs", (".gr", ".gr.gz"), ".gr (+.co), .gr.gz", "formats.dimacs:load_dimacs",
               own_weights=True, sniff="formats.dimacs:sniff_kind", companions="formats.dimacs:co_files"),
    FormatSpec("pace", (".gr.xz",), ".gr.xz (PACE)", "formats.dimacs:load_pace",
               own_weights=True, sniff="formats.dimacs:sniff_kind"),
    FormatSpec("graphml", (".graphml", ".graphml.gz"), ".graphml", "formats.graphml:load_graphml"),
    FormatSpec("geojson", (".geojson", ".json"), ".geojson", "formats.geojson:load_geojson"),
    FormatSpec("gpkg", (".gpkg",), ".gpkg", "formats.gpkg:load_gpkg"),
    # With the gis extra (pyogrio, pyarrow):
    FormatSpec("shapefile", (".shp", ".shp.zip"), ".shp, .shp.zip", "formats.ogr:load_ogr",
               companions="formats.ogr:shapefile_parts"),
    FormatSpec("flatgeobuf", (".fgb",), ".fgb", "formats.ogr:load_ogr"),
    FormatSpec("gml", (".gml",), ".gml", "formats.ogr:load_ogr"),
    FormatSpec("filegdb", (".gdb",), ".gdb (File Geodatabase folder)", "formats.ogr:load_ogr",
               cached=False),  # a folder: the cache keys files' bytes
    FormatSpec("geoparquet", (".parquet", ".geoparquet"), ".parquet (GeoParquet)",
               "formats.ogr:load_ogr"),
    FormatSpec("cache", (".spn",), "its own .spn cache", "cache:read_cache",
               own_weights=True, cached=False),
    # A pgRouting edge table: postgresql://...?table=NAME (maps/postgis/conn.py, maps/postgis/read.py)
    FormatSpec("postgis", (), "postgresql://...?table=NAME (pgRouting edges)",
               "postgis.read:load_postgis", own_weights=True, cached=False, uri=True),
)  # fmt: skip
_BY_KIND = {spec.kind: spec for spec in FORMATS}


def find_format(path: str) -> FormatSpec | None:
    """The format ``path``'s name says, or None."""
    from .postgis.conn import is_db_uri

    if is_db_uri(path):
        return _BY_KIND["postgis"]
    low = path.lower().rstrip("/\\")  # a .gdb folder may end in a separator
    return next((spec for spec in FORMATS if low.endswith(spec.suffixes)), None)


def format_spec(path: str) -> FormatSpec:
    """The format ``path``'s name says; UnknownFormatError listing the readable ones."""
    spec = find_format(path)
    if spec is None:
        shown = [spec.shown for spec in FORMATS]
        raise UnknownFormatError(
            f"unknown map format; Signpost reads {', '.join(shown[:-1])} and {shown[-1]}",
            path=path,
        )
    return spec


def detect_format(path: str) -> str:
    """The kind of map ``path``'s name says ("osm", "dimacs", ...)."""
    return format_spec(path).kind


def companion_files(path: str) -> list[str]:
    """Existing files whose content changes what ``path`` loads to (a DIMACS .co)."""
    spec = find_format(path)
    if spec is None or spec.companions is None:
        return []
    return [c for c in spec.function("companions")(path) if os.path.exists(c)]


@functools.lru_cache(maxsize=1)
def loader_modules() -> tuple[str, ...]:
    """The ``maps`` modules whose code decides what a file loads to: this table, every
    function it names and what they import from ``maps``, transitively (file names)."""
    here = Path(__file__).resolve().parent
    todo = [Path(__file__).stem]
    todo += [getattr(s, f).split(":")[0] for s in FORMATS
             for f in ("reader", "sniff", "companions") if getattr(s, f)]  # fmt: skip
    seen: set[str] = set()
    while todo:  # dotted names below maps ("formats.osm"); packages count as their modules
        name = todo.pop()
        file = here.joinpath(*name.split(".")).with_suffix(".py")
        if name in seen or not file.is_file():
            continue
        seen.add(name)
        pkg = name.split(".")[:-1]
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level >= 1:
                base = pkg[: len(pkg) - (node.level - 1)]
                mod = [*base, *node.module.split(".")] if node.module else base
                todo += [".".join(mod)] + [".".join([*mod, a.name]) for a in node.names]
    return tuple(sorted(name.replace(".", "/") + ".py" for name in seen))


def load_map(
    path: str | os.PathLike,
    *,
    profile: str | None = None,
    contract: bool = False,
    use_cache: bool = True,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    seed: int = 1,
    layer: str | None = None,
    crs: str | None = None,
    weight: str | None = None,
    weight_unit: str | None = None,
    split_crossings: bool = False,
    sql: str | None = None,
) -> RoadNetwork:
    """Load ``path`` as a :class:`RoadNetwork` with integer weights of ``profile``.

    ``layer`` names the line layer of a multi-layer file (else its only line layer),
    ``crs`` overrides the file's coordinate system (``maps.geo.crs``), ``weight`` /
    ``weight_unit`` make an edge attribute the cost (``maps.model.weights``; the profile then
    only picks roads and directions, and without one every line is used in the
    directions of its ``oneway``), ``split_crossings`` nodes lines where they cross.
    An option the format's reader does not take fails naming it. ``path`` may also be a
    ``postgresql://...?table=NAME`` URI of a pgRouting edge table, or one without
    ``table`` plus ``sql``, a query returning its columns (``maps.postgis.read``).

    ``profile`` is one of PROFILES for geographic formats (default "length") and must be
    None or "file" for DIMACS/PACE graphs, whose weights come from the file (PACE files
    carry none: uniform random 1..1000 from ``seed``, as the benchmarks state).
    ``contract`` merges degree-2 chains (geometry kept for drawing). The result is cached
    by file content + options (see ``maps.cache``) unless ``use_cache`` is False.
    """
    path = os.fspath(path)
    spec = format_spec(path)
    from .postgis.conn import redact

    shown = redact(path)  # a URI's password never reaches a message
    if not spec.uri and not os.path.exists(path):
        raise MapFormatError("no such file", path=path)
    from .model.weights import weight_spec

    wspec = weight_spec(weight, weight_unit, by_profile=profile is not None)
    if wspec is not None and profile is None and not spec.own_weights:
        profile = "length"  # unused: every line, by its oneway (maps.model.weights)
    if spec.own_weights:
        if profile not in (None, "file"):
            raise ProfileError(
                f"profile {profile!r} does not apply to a {spec.kind} graph, whose weights come from the file",
                path=shown,
            )
        profile = "file"
    else:
        profile = profile or "length"
        if profile not in PROFILES:
            raise ProfileError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    options = {
        "profile": profile,
        "contract": contract,
        "seed": seed,
        "progress": progress,
        "cancel": cancel,
    }
    # Options only some readers take: given to one that does not, they fail.
    extra = {"layer": layer, "crs": crs, "weight": wspec, "split_crossings": split_crossings,
             "sql": sql}
    given = {k: v for k, v in extra.items() if v not in (None, False)}
    options.update(given)

    if spec.uri:
        options["use_cache"] = use_cache
        log.info("opening %s (%s, profile %s)", shown, spec.kind, profile)
    else:
        log.info("opening %s (%s, %s bytes, profile %s%s)", path, spec.kind,
                 f"{os.path.getsize(path):,}", profile, ", contract" if contract else "")

    def build() -> RoadNetwork:
        reader_spec = _BY_KIND[spec.function("sniff")(path, spec.kind)] if spec.sniff else spec
        read = reader_spec.function("reader")
        log.debug("reader %s", reader_spec.reader)
        takes = inspect.signature(read).parameters
        for name in given:
            if name not in takes:
                flag = "--" + name.replace("_", "-")
                raise MapFormatError(f"{flag} does not apply to {reader_spec.kind} maps",
                                     path=shown)
        net = read(path, **{k: v for k, v in options.items() if k in takes})
        log.info("read %s: %s nodes, %s arcs, unit %s", reader_spec.kind,
                 f"{net.num_nodes:,}", f"{net.num_arcs:,}", net.unit)
        if use_cache and spec.cached and progress is not None:
            progress(1.0, "writing the cache")
        return net

    if not (use_cache and spec.cached):
        return build()
    from .cache import cached

    key = {"profile": profile, "contract": contract, "seed": seed, "fmt": spec.kind}
    if given:  # only then: the keys of existing entries stay as they were
        key.update({k: (v.column, v.dimension, v.factor, v.by_profile) if k == "weight" else v
                    for k, v in given.items()})  # fmt: skip
    return cached(path, key, build)  # the key also covers the file's content and loader code
