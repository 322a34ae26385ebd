"""Issue 25's move of ``maps/`` into sub-packages by role, as a table and a rewriter.

``python scripts/maps_moves.py FILE...`` rewrites, in place, the references to the old flat
modules that FILEs hold: ``maps.osm`` → ``maps.formats.osm``, ``maps/osm.py`` →
``maps/formats/osm.py``, ``from maps import profiles`` → ``from maps.model import
profiles`` and, inside ``maps/``, relative imports (recomputed from the file's own place).
Run it on code written against the flat layout (another branch's new files) after a merge.
Rewriting twice changes nothing.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# old module under maps -> new module under maps
MOVES: dict[str, str] = {
    "osm": "formats.osm",
    "dimacs": "formats.dimacs",
    "graphml": "formats.graphml",
    "geojson": "formats.geojson",
    "gpkg": "formats.gpkg",
    "ogr": "formats.ogr",
    "networkx_io": "formats.networkx_io",
    "network": "model.network",
    "build": "model.build",
    "lines": "model.lines",
    "weights": "model.weights",
    "profiles": "model.profiles",
    "contract": "model.chains",
    "projection": "geo.projection",
    "crs": "geo.crs",
    "geometry": "geo.geometry",
    "crossings": "geo.crossings",
    "points": "points.resolve",
    "point_files": "points.files",
    "snap": "points.snap",
    "areas": "points.areas",
    "gpkg_features": "points.gpkg_features",
    "vector_out": "outputs.vector",
    "postgis": "postgis.read",
    "pg_conn": "postgis.conn",
    "pg_binary": "postgis.binary",
    "pg_catalog": "postgis.catalog",
    "pg_edges": "postgis.edges",
    "pg_write": "postgis.write",
}
STAY = ("errors", "source", "load", "cache", "generate", "samples")
PACKAGES = sorted({new.split(".")[0] for new in MOVES.values()})
_NEW_MODULES = sorted({new.split(".")[1] for new in MOVES.values()})


def _old(name: str) -> str:
    """A regex for the old module ``name`` not already followed by a new module of it."""
    after = "|".join(_NEW_MODULES)
    return rf"{re.escape(name)}\b(?!\.(?:{after})\b)"


_DOTTED = re.compile(rf"(?<![\w.])maps\.({'|'.join(_old(n) for n in MOVES)})")
_PATHS = re.compile(rf"(?<![\w./])maps/({'|'.join(map(re.escape, MOVES))})\.py\b")
_FROM_MAPS = re.compile(r"^(\s*)from maps import ([\w, ]+?)(\s*(?:#.*)?)$", re.M)
_RELATIVE = re.compile(r"^(\s*)from (\.+)([\w.]*) import ", re.M)


def _dotted(m: re.Match) -> str:
    return "maps." + MOVES[m.group(1)]


def _from_maps(m: re.Match) -> str:
    names = [n.strip() for n in m.group(2).split(",")]
    moved = [n.split(" as ")[0] for n in names]
    if len(names) != 1 or moved[0] not in MOVES:
        return m.group(0)
    pkg, mod = MOVES[moved[0]].split(".")
    alias = names[0][len(moved[0]):]
    return f"{m.group(1)}from maps.{pkg} import {mod}{alias}{m.group(3)}"


def rewrite_relative(text: str, module: str, *, moved_from: str | None = None) -> str:
    """Relative imports of the maps module ``module`` (new dotted name, e.g.
    ``maps.formats.osm``) recomputed; ``moved_from`` its old dotted name when it moved."""
    here = (moved_from or module).split(".")[:-1]  # the package its old imports assume
    new_pkg = module.split(".")[:-1]

    def fix(m: re.Match) -> str:
        dots, rest = m.group(2), m.group(3)
        base = here[: len(here) - (len(dots) - 1)]
        target = ".".join(base + ([rest] if rest else []))
        parts = target.split(".")
        if len(parts) == 2 and parts[0] == "maps" and parts[1] in MOVES:
            parts = ["maps", *MOVES[parts[1]].split(".")]
        elif len(parts) == 1 and rest == "" and len(base) == 1:
            # ``from . import profiles``: names, not a module path; handled below
            return m.group(0)
        common = 0
        while common < min(len(parts), len(new_pkg)) and parts[common] == new_pkg[common]:
            common += 1
        up = len(new_pkg) - common
        tail = ".".join(parts[common:])
        return f"{m.group(1)}from {'.' * (up + 1)}{tail} import "

    text = _RELATIVE.sub(fix, text)
    # ``from . import profiles as P`` at the old top level
    if len(here) == 1:
        def fix_names(m: re.Match) -> str:
            name, alias = m.group(2), m.group(3) or ""
            if name not in MOVES:
                return m.group(0)
            pkg, mod = MOVES[name].split(".")
            up = "." * (len(new_pkg))
            return f"{m.group(1)}from {up}{pkg} import {mod}{alias}"

        text = re.sub(r"^(\s*)from \. import (\w+)( as \w+)?$", fix_names, text, flags=re.M)
    return text


# the shared helpers that left resources/ (a package of static files now)
_OSUTIL = re.compile(r"(?<![\w.])resources\.(atomic|host)\b")


def rewrite(text: str) -> str:
    """Absolute references to moved maps modules, rewritten (idempotent)."""
    text = _OSUTIL.sub(lambda m: "osutil." + {"atomic": "atomic", "host": "memory"}[m.group(1)],
                       text)
    text = _DOTTED.sub(_dotted, text)
    text = _PATHS.sub(lambda m: "maps/" + MOVES[m.group(1)].replace(".", "/") + ".py", text)
    return _FROM_MAPS.sub(_from_maps, text)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        p = Path(arg)
        old = p.read_text(encoding="utf-8")
        new = rewrite(old)
        if new != old:
            p.write_text(new, encoding="utf-8")
            print(f"rewrote {p}")
