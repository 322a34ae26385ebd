"""Issue 24 item 3: every input is read within $SIGNPOST_MAX_INPUT_MB while reading, never
by trusting ``stat``: /dev/zero, /dev/urandom, a symlink named .geojson to /dev/zero, a
FIFO and process substitution either work (read once into memory, then parsed) or end in
one line with exit status 2, never a hang or a heap the size of the machine. Each case runs
under an alarm so that a regression fails in seconds instead of hanging the suite."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from app.cli import main
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not os.path.exists("/dev/zero") or not hasattr(os, "mkfifo"),
                                reason="needs /dev/zero and FIFOs (POSIX)")


@pytest.fixture(autouse=True)
def _bounded(tmp_path, monkeypatch):
    """A small input limit, a private cache and a 30 s alarm around every test."""
    monkeypatch.setenv("SIGNPOST_MAX_INPUT_MB", "2")
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))

    def hung(*_):
        raise TimeoutError("the command hung")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _one_line(capsys, *argv) -> str:
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1, (rc, err)
    return err.strip()


def _link(tmp_path, name: str, target: str) -> str:
    p = tmp_path / name
    p.symlink_to(target)
    return str(p)


def _points(tmp_path) -> str:
    p = tmp_path / "p.csv"
    p.write_text("node\n1\n2\n3\n")
    return str(p)


def _writer(path: str, data: bytes, delay: float = 0.2) -> threading.Thread:
    """A thread that opens the FIFO ``path`` for writing after ``delay`` s, writes, closes."""
    def run():
        time.sleep(delay)
        with open(path, "wb") as fh:
            fh.write(data)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_scenario_at_a_device_behind_a_geojson_symlink(tmp_path, capsys, device) -> None:
    s = _link(tmp_path, "s.geojson", device)
    t0 = time.perf_counter()
    err = _one_line(capsys, "route", TINY, "--from", "node:1", "--to", "node:3",
                    "--scenario", s, "--backend", "cpu")
    assert "s.geojson" in err and "binary content" in err, err
    assert time.perf_counter() - t0 < 20  # stopped at the first bytes, not at the limit


@pytest.mark.parametrize("argv", [
    ["matrix", TINY, "--from", "{z}", "--to", "{p}", "--out", "{out}"],
    ["matrix", TINY, "--from", "{p}", "--to", "{z}", "--out", "{out}"],
    ["billboards", TINY, "-k", "1", "--demand", "{z}", "--backend", "cpu"],
])
def test_points_and_demand_at_dev_zero(tmp_path, capsys, argv) -> None:
    names = {"z": "/dev/zero", "p": _points(tmp_path), "out": str(tmp_path / "m.csv")}
    err = _one_line(capsys, *[a.format(**names) for a in argv])
    assert "/dev/zero" in err and "binary content" in err, err
    assert not (tmp_path / "m.csv").exists()


def test_within_at_dev_zero(tmp_path, capsys) -> None:
    osm = str(FIXTURES / "osm" / os.listdir(FIXTURES / "osm")[0])
    area = _link(tmp_path, "a.geojson", "/dev/zero")
    err = _one_line(capsys, "billboards", osm, "-k", "1", "--within", area, "--backend", "cpu")
    assert "a.geojson" in err, err


def test_an_endless_text_stream_stops_at_the_limit(tmp_path, capsys) -> None:
    """/dev/zero has NULs; ``yes`` through a FIFO is endless text: the 2 MB limit ends it."""
    fifo = tmp_path / "yes.csv"
    os.mkfifo(fifo)
    yes = subprocess.Popen(["sh", "-c", f"yes 1 > '{fifo}'"], stderr=subprocess.DEVNULL)
    try:
        err = _one_line(capsys, "matrix", TINY, "--from", fifo, "--to", _points(tmp_path),
                        "--out", tmp_path / "m.csv")
    finally:
        yes.kill()
        yes.wait()
    assert "more than 2 MB" in err and "SIGNPOST_MAX_INPUT_MB" in err, err


def test_points_from_a_fifo_with_a_writer(tmp_path, capsys) -> None:
    fifo = tmp_path / "from.csv"
    os.mkfifo(fifo)
    out = tmp_path / "m.csv"
    _writer(str(fifo), b"node\n1\n2\n")
    assert main(["matrix", TINY, "--from", str(fifo), "--to", _points(tmp_path), "--out",
                 str(out), "--backend", "cpu"]) == 0, capsys.readouterr().err
    two = tmp_path / "two.csv"
    two.write_text("node\n1\n2\n")
    ref = tmp_path / "ref.csv"
    assert main(["matrix", TINY, "--from", str(two), "--to", _points(tmp_path), "--out",
                 str(ref), "--backend", "cpu"]) == 0
    assert out.read_text() == ref.read_text() and len(ref.read_text().splitlines()) == 1 + 2 * 3


def test_a_fifo_nobody_writes_is_one_line_not_a_hang(tmp_path, capsys, monkeypatch) -> None:
    import maps.source

    monkeypatch.setattr(maps.source, "FIFO_WAIT_S", 0.5)
    fifo = tmp_path / "s.geojson"
    os.mkfifo(fifo)
    err = _one_line(capsys, "route", TINY, "--from", "node:1", "--to", "node:3",
                    "--scenario", fifo)
    assert "FIFO" in err and "nothing wrote to" in err, err


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_map_that_is_a_fifo_or_dev_zero(tmp_path, capsys, kind) -> None:
    if kind == "fifo":
        m = tmp_path / "m.gr"
        os.mkfifo(m)
        _writer(str(m), Path(TINY).read_bytes(), delay=0.0)  # even with a writer
    else:
        m = _link(tmp_path, "m.gr", "/dev/zero")
    err = _one_line(capsys, "info", m)
    assert "not a regular file" in err and "m.gr" in err, err
    if kind == "fifo":  # let the writer thread finish: open it once for reading
        with open(m, "rb") as fh:
            fh.read()


def test_a_gr_over_the_limit_is_refused_before_hashing(tmp_path, capsys, monkeypatch) -> None:
    import maps.cache

    def no_hashing(path):
        raise AssertionError(f"hashed {path}")

    monkeypatch.setattr(maps.cache, "file_digest", no_hashing)
    big = tmp_path / "big.gr"
    lines = ["p sp 2 1", "a 1 2 1"] + ["c " + "x" * 1000] * 2200  # 2.2 MB of comments
    big.write_text("\n".join(lines) + "\n")
    err = _one_line(capsys, "info", big)
    assert "big.gr" in err and "more than 2 MB" in err, err


def test_process_substitution_reads_points(tmp_path) -> None:
    """``--from <(cat p.csv)`` in bash: /dev/fd/N, a pipe that cannot seek."""
    p = _points(tmp_path)
    out = tmp_path / "m.csv"
    code = ("import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))")
    cmd = (f"'{sys.executable}' -c '{code}' matrix '{TINY}' --from <(cat '{p}') --to '{p}' "
           f"--out '{out}' --backend cpu --no-cache -q")
    r = subprocess.run(["bash", "-c", cmd], cwd=REPO, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert len(out.read_text().splitlines()) == 1 + 3 * 3
