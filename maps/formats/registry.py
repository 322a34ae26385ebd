"""The one table of map formats, :data:`FORMATS`: how a file is recognised (its name's
ending, then optionally its content), which reader loads it, and whether its weights come
from the file. ``maps.load.load_map``, ``detect_format``, the cache key (``maps.cache``)
and the "unknown map format" message all read it. A new format is a reader module in
``maps/formats/`` plus one line here.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UnknownFormatError

_MAPS = __package__.rsplit(".", 1)[0]  # reader names are relative to maps


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
    folder: bool = False  # a folder, not a file (no file dialog picks it; not size-checked)
    # read through maps.source within $SIGNPOST_MAX_INPUT_MB (a text format we parse)
    read_bounded: bool = False
    way_ids: bool = True  # arcs carry way / feature ids (what-if edits address ways by them)

    def function(self, field: str) -> Callable[..., Any]:
        """The function ``field`` ("reader", "sniff" or "companions") names, imported now."""
        module, name = getattr(self, field).split(":")
        return getattr(importlib.import_module(f"{_MAPS}.{module}"), name)


# Order: how the "unknown map format" message lists them (no suffix is in two lines).
FORMATS: tuple[FormatSpec, ...] = (
    FormatSpec("osm", (".osm.pbf", ".pbf", ".osm", ".osm.bz2", ".osm.gz"),
               ".osm.pbf, .osm, .osm.bz2", "formats.osm:load_osm"),
    FormatSpec("dimacs", (".gr", ".gr.gz"), ".gr (+.co), .gr.gz", "formats.dimacs:load_dimacs",
               own_weights=True, sniff="formats.dimacs:sniff_kind", companions="formats.dimacs:co_files",
               read_bounded=True, way_ids=False),
    FormatSpec("pace", (".gr.xz",), ".gr.xz (PACE)", "formats.dimacs:load_pace",
               own_weights=True, sniff="formats.dimacs:sniff_kind", read_bounded=True,
               way_ids=False),
    FormatSpec("graphml", (".graphml", ".graphml.gz"), ".graphml", "formats.graphml:load_graphml",
               read_bounded=True),
    FormatSpec("geojson", (".geojson", ".json"), ".geojson", "formats.geojson:load_geojson",
               read_bounded=True),
    FormatSpec("gpkg", (".gpkg",), ".gpkg", "formats.gpkg:load_gpkg"),
    # With the gis extra (pyogrio, pyarrow):
    FormatSpec("shapefile", (".shp", ".shp.zip"), ".shp, .shp.zip", "formats.ogr:load_ogr",
               companions="formats.ogr:shapefile_parts"),
    FormatSpec("flatgeobuf", (".fgb",), ".fgb", "formats.ogr:load_ogr"),
    FormatSpec("gml", (".gml",), ".gml", "formats.ogr:load_ogr"),
    FormatSpec("filegdb", (".gdb",), ".gdb (File Geodatabase folder)", "formats.ogr:load_ogr",
               cached=False, folder=True),  # a folder: the cache keys files' bytes
    FormatSpec("geoparquet", (".parquet", ".geoparquet"), ".parquet (GeoParquet)",
               "formats.ogr:load_ogr"),
    FormatSpec("cache", (".spn",), "its own .spn cache", "cache:read_cache",
               own_weights=True, cached=False),
    # A pgRouting edge table: postgresql://...?table=NAME (maps/postgis/conn.py, maps/postgis/read.py)
    FormatSpec("postgis", (), "postgresql://...?table=NAME (pgRouting edges)",
               "postgis.read:load_postgis", own_weights=True, cached=False, uri=True),
)  # fmt: skip
_BY_KIND = {spec.kind: spec for spec in FORMATS}


def kinds_where(flag: str, value: bool = True) -> tuple[str, ...]:
    """The kinds whose ``flag`` field equals ``value`` (e.g. ``own_weights``): the lists
    other modules once kept by hand."""
    return tuple(spec.kind for spec in FORMATS if getattr(spec, flag) == value)


def open_filter() -> str:
    """A file dialog's name filter for every map file a reader takes (folders and URIs
    are opened otherwise)."""
    patterns = " ".join(f"*{sfx}" for spec in FORMATS if not (spec.folder or spec.uri)
                        for sfx in spec.suffixes)
    return f"Maps ({patterns});;All files (*)"


def by_kind(kind: str) -> FormatSpec:
    """The format named ``kind`` (a sniff function's answer)."""
    return _BY_KIND[kind]


# A database table is a map source like a file; the registry tells the two apart here, below
# maps.postgis (which reads the tables and imports the load cache above the formats).
DB_SCHEMES = ("postgresql://", "postgres://")


def is_db_uri(text: Any) -> bool:
    """True for a ``postgresql://`` / ``postgres://`` URI (any case)."""
    return isinstance(text, str) and text[:13].lower().startswith(DB_SCHEMES)


def find_format(path: str) -> FormatSpec | None:
    """The format ``path``'s name says, or None."""
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
    here = Path(__file__).resolve().parents[1]
    todo = ["load", "formats.registry"]  # load_map and this table decide too
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
        for level, module, names in relative_imports(file.read_text(encoding="utf-8")):
            base = pkg[: len(pkg) - (level - 1)]
            mod = [*base, *module.split(".")] if module else base
            todo += [".".join(mod)] + [".".join([*mod, a]) for a in names]
    return tuple(sorted(name.replace(".", "/") + ".py" for name in seen))


# "from .x import a, b as c" / "from .. import (d,  # note\n e)", at any indentation (lazy
# imports in functions count too)
_REL_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.+)([\w.]*)[ \t]+import[ \t]*"
                         r"(\((?:[^)#]|#[^\n]*)*\)|(?:[^\n\\]|\\[\s\S])*)", re.M)


def relative_imports(text: str) -> list[tuple[int, str, list[str]]]:
    """(level, module, names) of each relative ``from ... import`` in a module's source: a
    text scan, as ast.walk over every node found them but about 4x faster (every command
    pays it once, for the load cache's key: 30 modules, ~0.2 s of a 1 s command). A match
    inside a string only adds a file to the key (safe); tests/maps/test_load.py holds it
    equal to the AST's answer for every module of the project."""
    out = []
    for m in _REL_IMPORT.finditer(text):
        body = re.sub(r"#[^\n]*", "", m[3]).replace("\\\n", " ").strip("()")
        names = [n.split()[0] for n in body.split(",") if n.split()]
        out.append((len(m[1]), m[2], names))
    return out
