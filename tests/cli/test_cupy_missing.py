"""``--backend cupy`` on a machine without a usable GPU: every command that takes it says
so in one error line (exit 2), never a traceback. The sampled billboards met CuPy's
missing module first in their GPU set-up (compiling ahead) and crashed with a bare
``ModuleNotFoundError`` (stop 56)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from gpu_core.backend import cupy_status

pytestmark = pytest.mark.skipif(cupy_status()[0], reason="a usable GPU is here")

SAMPLE = str(Path(__file__).resolve().parents[2] / "maps" / "samples" / "helsinki.osm.pbf")
A, B = "24.940,60.170", "24.950,60.175"  # lon,lat on the sample map's roads


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def _points(path, *nodes: str) -> str:
    path.write_text("id,lon,lat\n" + "".join(f"{i},{p}\n" for i, p in enumerate(nodes)))
    return str(path)


@pytest.mark.parametrize("argv", [
    ["route", "--from", A, "--to", B],
    ["route", "--from", A, "--to", B, "--index", "on"],
    ["sssp", "--source", A, "--out", "{tmp}/d.csv"],
    ["isochrones", "--from", A, "--metres", "500", "--out", "{tmp}/i.geojson"],
    ["billboards", "-k", "3"],
    ["billboards", "-k", "3", "--method", "sampled"],
    ["billboards", "-k", "3", "--method", "sampled", "--sampling", "fixed"],
    ["matrix", "--from", "{pts}", "--to", "{pts}", "--out", "{tmp}/m.csv"],
    ["matrix", "--from", "{pts}", "--to", "{pts}", "--index", "on", "--out", "{tmp}/m.csv"],
    ["mst", "--out", "{tmp}/t.geojson"],
    ["pagerank", "--out", "{tmp}/r.csv"],
], ids=lambda a: " ".join(x for x in a if x[:1] not in "{2"))
def test_cupy_backend_refused_in_one_line(argv, tmp_path, capsys):
    pts = _points(tmp_path / "p.csv", A, B)
    args = [a.format(tmp=tmp_path, pts=pts) for a in argv]
    rc = main([args[0], SAMPLE, *args[1:], "--backend", "cupy"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith(f"signpost {args[0]}: error:"), err
    assert "cupy" in err.lower() and "not available" in err, err
    assert "Traceback" not in err
