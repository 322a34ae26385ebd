"""The format table in maps.load: every line resolves, detection, cache inputs."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from maps.errors import UnknownFormatError
from maps.formats.registry import (
    FORMATS,
    companion_files,
    detect_format,
    format_spec,
    loader_modules,
    relative_imports,
)

FIX = Path(__file__).resolve().parents[1] / "fixtures"
ROOT = Path(__file__).resolve().parents[2]


def test_every_format_line_resolves() -> None:
    kinds = [spec.kind for spec in FORMATS]
    assert len(set(kinds)) == len(kinds)
    suffixes = [s for spec in FORMATS for s in spec.suffixes]
    assert len(set(suffixes)) == len(suffixes)
    for spec in FORMATS:
        assert all(s == s.lower() and s.startswith(".") for s in spec.suffixes)
        for field in ("reader", "sniff", "companions"):
            if getattr(spec, field):
                assert callable(spec.function(field)), (spec.kind, field)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("a.osm.pbf", "osm"), ("A.PBF", "osm"), ("a.osm.gz", "osm"), ("a.gr", "dimacs"),
        ("a.gr.gz", "dimacs"), ("a.gr.xz", "pace"), ("a.graphml.gz", "graphml"),
        ("a.json", "geojson"), ("a.gpkg", "gpkg"), ("a.spn", "cache"),
    ],
)  # fmt: skip
def test_detect_format(name: str, kind: str) -> None:
    assert detect_format(name) == kind
    assert format_spec(name).own_weights == (kind in ("dimacs", "pace", "cache"))


def test_unknown_format_lists_every_format() -> None:
    with pytest.raises(UnknownFormatError) as exc:
        detect_format("map.txt")
    assert str(exc.value) == (
        "map.txt: unknown map format; Signpost reads .osm.pbf, .osm, .osm.bz2, .gr (+.co), "
        ".gr.gz, .gr.xz (PACE), .graphml, .geojson, .gpkg, .shp, .shp.zip, .fgb, .gml, "
        ".gdb (File Geodatabase folder), .parquet (GeoParquet), its own .spn cache and "
        "postgresql://...?table=NAME (pgRouting edges)"
    )


def test_companions_and_loader_modules(tmp_path) -> None:
    gr = tmp_path / "t.gr"
    shutil.copy(FIX / "dimacs" / "tiny.gr", gr)
    assert companion_files(str(gr)) == []
    shutil.copy(FIX / "dimacs" / "tiny.co", tmp_path / "t.co")
    assert companion_files(str(gr)) == [str(tmp_path / "t.co")]
    assert companion_files(str(tmp_path / "t.gr.xz")) == []
    mods = loader_modules()
    for name in ("load.py", "cache.py", "formats/osm.py", "formats/dimacs.py", "model/lines.py",
                 "model/profiles.py"):
        assert name in mods
    assert "points/resolve.py" not in mods and "points/snap.py" not in mods


@pytest.mark.parametrize("uri", ["postgresql://u@h/db?table=ways", "POSTGRES:///db",
                                 "postgresql://?service=roads&table=s.ways"])
def test_database_uris_are_the_postgis_source(uri: str) -> None:
    spec = format_spec(uri)
    assert spec.kind == "postgis" and spec.uri and spec.own_weights and not spec.cached


def test_relative_imports_text_scan_matches_the_ast_on_every_module() -> None:
    """The load cache's key follows relative imports by a text scan (the AST walk it
    replaced cost ~0.2 s per command, docs/perf/house_bench.md): same answer everywhere,
    parenthesised lists with comments, ``as`` names, lazy imports in functions included."""
    files = [f for d in ("app", "gpu_core", "maps", "osutil", "tests") for f in (ROOT / d).rglob("*.py")]
    assert len(files) > 200
    for f in files:
        text = f.read_text(encoding="utf-8")
        want = sorted((n.level, n.module or "", [a.name for a in n.names])
                      for n in ast.walk(ast.parse(text))
                      if isinstance(n, ast.ImportFrom) and n.level >= 1)
        assert sorted(relative_imports(text)) == want, f
    tricky = ("def f():\n    from ..b import (c,  # a (note)\n        d as e)\n"
              "from . import g, h as i  # x\nfrom .j.k import \\\n    l\n")
    assert sorted(relative_imports(tricky)) == [(1, "", ["g", "h"]), (1, "j.k", ["l"]),
                                                (2, "b", ["c", "d"])]
