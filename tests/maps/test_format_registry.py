"""The map-format registry is the one list (issue 38): what the window's file dialog
offers, which formats keep their own weights, which are read within the input bound and
which carry way ids all follow ``FORMATS``; a new format is one ``FormatSpec`` line."""

from __future__ import annotations

import dataclasses

import pytest

from maps.formats import registry
from maps.formats.registry import FORMATS, FormatSpec, kinds_where, open_filter


def test_every_file_suffix_is_offered_by_the_open_dialog():
    pattern = open_filter().split(";;")[0]
    offered = pattern[pattern.index("(") + 1:pattern.index(")")].split()
    wanted = [f"*{s}" for spec in FORMATS if not (spec.folder or spec.uri) for s in spec.suffixes]
    assert offered == wanted
    assert "*.gdb" not in offered  # a folder: a file dialog cannot pick it


def test_derived_lists_follow_the_registry():
    from app.jobs.edits.targets import NO_WAY_FORMATS
    from app.jobs.maps import FILE_WEIGHT_FORMATS

    assert FILE_WEIGHT_FORMATS == tuple(s.kind for s in FORMATS if s.own_weights)
    assert set(NO_WAY_FORMATS) == {"dimacs", "pace"}  # arcs numbered by file line
    assert set(kinds_where("read_bounded")) == {"dimacs", "pace", "graphml", "geojson"}


def test_a_new_format_is_one_line(monkeypatch):
    """A FormatSpec added to FORMATS reaches the dialog and the flag lists by itself."""
    extra = FormatSpec("toy", (".toy",), ".toy", "formats.dimacs:load_dimacs",
                       own_weights=True, read_bounded=True, way_ids=False)
    monkeypatch.setattr(registry, "FORMATS", (*FORMATS, extra))
    assert "*.toy" in open_filter()
    for flag, value in (("own_weights", True), ("read_bounded", True), ("way_ids", False)):
        assert "toy" in kinds_where(flag, value)


@pytest.mark.parametrize("spec", FORMATS, ids=lambda s: s.kind)
def test_each_spec_names_importable_functions(spec):
    for name in ("reader", "sniff", "companions"):
        target = getattr(spec, name)
        if target is None:
            continue
        if target.startswith("formats.ogr:"):
            pytest.importorskip("pyogrio")  # the gis extra
        assert callable(spec.function(name))
    assert not (spec.uri and spec.suffixes)  # a URI has no file suffix
    assert dataclasses.is_dataclass(spec)


def test_the_readers_package_holds_no_writer():
    """``maps/formats`` reads maps; files are written by ``maps/outputs`` (and test
    fixtures by ``tests/``): no ``write_*``/``save_*`` function among the readers."""
    import ast
    from pathlib import Path

    import maps.formats

    found = []
    for py in sorted(Path(maps.formats.__file__).parent.glob("*.py")):
        for node in ast.parse(py.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith(("write", "save")):
                found.append(f"{py.name}:{node.lineno} {node.name}")
    assert not found, found
