"""Issue 40 item 12: isochrone bands are bounded up front (at most MAX_BANDS cutoffs), their
polygons' memory is projected before any is traced and refused in one line when it would
not fit, and running out of memory anywhere (MemoryError, GEOS's std::bad_alloc, CuPy's
OutOfMemoryError) is one line, never a traceback — in any command."""

from __future__ import annotations

import pytest

from app.cli import main
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")  # with tiny.co: coordinates, 5 nodes


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def iso(tmp_path, capsys, cutoffs: str, *extra) -> str:
    out = tmp_path / "i.geojson"
    rc = main(["isochrones", TINY, "--from", "node:1", "--metres", cutoffs, "--out", str(out),
               "--backend", "cpu", *extra])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, (rc, err)
    assert not out.exists()
    return err


def test_too_many_bands_refused_up_front(tmp_path, capsys, monkeypatch):
    import app.jobs.isochrones as job

    def no_work(*a, **k):
        raise AssertionError("the map was searched")

    monkeypatch.setattr(job, "run", no_work)
    err = iso(tmp_path, capsys, ",".join(str(i) for i in range(1, 1002)))
    assert "--metres: 1,001 cutoffs; at most 1,000 in one run" in err, err


def test_projected_memory_refused_before_any_polygon(tmp_path, capsys, monkeypatch):
    import app.jobs.iso_raster as raster
    import osutil.memory

    monkeypatch.setattr(osutil.memory, "available_memory", lambda: 4096)
    monkeypatch.setattr(raster.Field, "polygon", lambda self: pytest.fail("traced"))
    err = iso(tmp_path, capsys, "100,200,300")
    assert "the isochrone polygons would need about" in err and "available" in err, err
    assert "fewer cutoffs" in err


def test_projection_is_logged_with_v(tmp_path, capsys):
    assert main(["isochrones", TINY, "--from", "node:1", "--metres", "100,200", "--out",
                 str(tmp_path / "i.geojson"), "--backend", "cpu", "-v"]) == 0
    assert "2 band(s), about" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["raster", "union"])
@pytest.mark.parametrize("boom", ["bad_alloc", "memory"])
def test_out_of_memory_in_the_polygons_is_one_line(tmp_path, capsys, monkeypatch, boom,
                                                   method):
    import shapely

    import app.jobs.isochrones as job

    def fail(*a, **k):
        if boom == "memory":
            raise MemoryError()
        raise shapely.errors.GEOSException("std::bad_alloc")

    monkeypatch.setattr(job, "to_lonlat_geometry", fail)
    if method == "union":
        real = job.IsochroneOptions
        monkeypatch.setattr(job, "IsochroneOptions",
                            lambda *a, **k: real(*a, **{**k, "method": "union"}))
    err = iso(tmp_path, capsys, "100,200")
    assert "the isochrone polygons ran out of memory" in err, err


def test_any_command_out_of_memory_is_one_line(tmp_path, capsys, monkeypatch):
    import app.cli.mst as mst

    class OutOfMemoryError(Exception):  # what CuPy raises, by name
        pass

    def fail(*a, **k):
        raise OutOfMemoryError("Out of memory allocating 1,000,000,000 bytes")

    monkeypatch.setattr(mst, "map_from_args", fail)
    rc = main(["mst", TINY])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("signpost mst: error: out of memory (OutOfMemoryError)")
    assert len(err.splitlines()) == 1
