"""Every read bounded (issue 40, item 10): a FIFO or device in the cache folder (map entry,
route index, search index) or beside a Shapefile (.shx, .prj, .dbf, .cpg) is refused with
one line or treated as a damaged cache file, never waited on; a .prj is bounded in size; a
FIFO whose writer stalls after its first bytes ends in one line. Commands run in a child
process with a timeout, so a regression fails in seconds instead of hanging the suite."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

TINY = FIXTURES / "dimacs" / "tiny.gr"
ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/dev/urandom"),
                                reason="needs FIFOs and /dev/urandom (POSIX)")


def _cli(tmp_path, *argv, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), SIGNPOST_CACHE_DIR=str(tmp_path / "cache"),
               QT_QPA_PLATFORM="offscreen")
    code = "import sys; from app.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=timeout)


def _one_line(got: subprocess.CompletedProcess) -> str:
    err = got.stderr.strip()
    assert got.returncode == 2 and "Traceback" not in err and len(err.splitlines()) == 1, (
        got.returncode, err)
    return err


def _shapefile(tmp_path) -> Path:
    shp = tmp_path / "roads.shp"
    shp.write_bytes(b"\x00\x00\x27\x0a" + b"\x00" * 96)  # refused before GDAL reads it
    return shp


@pytest.mark.parametrize("part", [".shx", ".dbf", ".prj", ".cpg"])
def test_a_shapefile_companion_that_is_a_fifo_is_one_line(tmp_path, part):
    shp = _shapefile(tmp_path)
    os.mkfifo(shp.with_suffix(part))
    err = _one_line(_cli(tmp_path, "info", shp, timeout=30))
    assert "FIFO" in err and "roads" + part in err, err


def test_a_prj_on_a_device_or_too_big_is_one_line(tmp_path):
    shp = _shapefile(tmp_path)
    prj = shp.with_suffix(".prj")
    prj.symlink_to("/dev/urandom")
    err = _one_line(_cli(tmp_path, "info", shp, timeout=30))
    assert "character device" in err and "roads.prj" in err, err
    prj.unlink()
    prj.write_bytes(b"G" * (2 << 20))  # a CRS is a few hundred bytes
    err = _one_line(_cli(tmp_path, "info", shp, timeout=30))
    assert "more than the 1,048,576" in err and "roads.prj" in err, err


def test_fifos_in_the_cache_folder_are_rebuilt_not_waited_on(tmp_path):
    run = ("sssp", TINY, "--source", "node:1", "--backend", "cpu", "--if-exists", "replace", "--out")
    first = _cli(tmp_path, *run, tmp_path / "a.csv", "--index", "on")
    assert first.returncode == 0, first.stderr
    cache = tmp_path / "cache"
    entries = [p for p in cache.iterdir() if p.suffix in (".spn", ".npz")]
    assert any(p.suffix == ".spn" for p in entries) and any(p.suffix == ".npz" for p in entries)
    for p in entries:
        p.unlink()
        os.mkfifo(p)
    again = _cli(tmp_path, *run, tmp_path / "b.csv", timeout=30)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert all(p.is_file() for p in entries if p.suffix == ".spn")  # the entry is written anew


def test_a_fifo_whose_writer_stalls_mid_stream_is_one_line(tmp_path, monkeypatch):
    import maps.source
    from maps.errors import MapFormatError

    monkeypatch.setattr(maps.source, "FIFO_WAIT_S", 0.5)
    fifo = tmp_path / "p.csv"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "wb") as fh:
            fh.write(b"node\n1\n")
            fh.flush()
            time.sleep(4)  # stalls after its first bytes

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    with pytest.raises(MapFormatError, match="writer stalled") as got:
        maps.source.read_bounded(str(fifo), text="CSV")
    assert "p.csv" in str(got.value)
    t.join()


def test_open_regular_refuses_fifos_devices_and_big_files(tmp_path):
    from osutil.regular import FileTooLargeError, NotRegularFileError, open_regular, read_regular

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError, match="FIFO"):
        open_regular(fifo)
    with pytest.raises(NotRegularFileError, match="character device"):
        read_regular("/dev/urandom", 10)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(FileTooLargeError):
        read_regular(big, 10)
    assert read_regular(big, 11) == b"x" * 11
