"""Issue 14 item 1: every output is written whole or not at all (osutil.atomic)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from osutil.atomic import PREFIX, atomic_open, atomic_paths, sweep_stale, write_atomic

FIX = Path(__file__).resolve().parents[1] / "fixtures"
TINY = FIX / "dimacs" / "tiny.gr"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def temps(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(PREFIX)]


def umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


@pytest.mark.parametrize("exc", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_failed_write_keeps_the_old_file_and_no_temp(tmp_path, exc):
    out = tmp_path / "x.csv"
    out.write_text("old\n")

    def half(fh):
        fh.write("new, half")
        raise exc

    with pytest.raises(type(exc)):
        write_atomic(out, half)
    assert out.read_text() == "old\n"
    assert temps(tmp_path) == []


def test_symlink_is_replaced_and_its_target_untouched(tmp_path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    link = tmp_path / "out.csv"
    link.symlink_to(target)
    with atomic_open(link, "w") as fh:
        fh.write("new\n")
    assert not link.is_symlink()
    assert link.read_text() == "new\n"
    assert target.read_text() == "keep me\n"


def test_files_get_the_umask_not_0600(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "a.csv", lambda fh: fh.write("x"))
    finally:
        os.umask(old)
    assert (tmp_path / "a.csv").stat().st_mode & 0o777 == 0o640


def test_group_is_renamed_together_or_not_at_all(tmp_path):
    a, b = tmp_path / "g.gr", tmp_path / "g.co"
    with pytest.raises(RuntimeError), atomic_paths([a, b]) as (ta, tb):
        Path(ta).write_text("gr")
        raise RuntimeError("the .co failed")
    assert not a.exists() and not b.exists() and temps(tmp_path) == []


def test_stale_temps_of_dead_runs_are_swept_only_ours(tmp_path):
    dead = 2**22 + 12345  # above pid_max's default: no such process
    stale = tmp_path / f"{PREFIX}{dead}-0123456789ab.spn"
    fresh = tmp_path / f"{PREFIX}{dead}-ba9876543210.spn"
    live = tmp_path / f"{PREFIX}{os.getpid()}-aaaaaaaaaaaa.spn"
    foreign = tmp_path / ".spn-something"
    for p in (stale, fresh, live, foreign):
        p.write_bytes(b"x")
    old = time.time() - 3600
    for p in (stale, live, foreign):
        os.utime(p, (old, old))
    assert sweep_stale(tmp_path) == 1
    assert not stale.exists() and fresh.exists() and live.exists() and foreign.exists()


def test_cache_write_sweeps_orphans_and_leaves_none(tmp_path):
    from maps.cache import read_cache, write_cache
    from maps.load import load_map

    net = load_map(TINY, use_cache=False)
    orphan = tmp_path / f"{PREFIX}{2**22 + 1}-0123456789ab.spn"
    orphan.write_bytes(b"half")
    os.utime(orphan, (time.time() - 3600,) * 2)
    write_cache(net, tmp_path / "t.spn")
    assert temps(tmp_path) == []
    assert read_cache(tmp_path / "t.spn").num_arcs == net.num_arcs


def test_sssp_out_failing_midway_keeps_the_old_file(tmp_path, capsys, monkeypatch):
    import app.cli.sssp as cli_sssp

    out = tmp_path / "s.csv"
    out.write_text("node_id,cost\nold\n")
    link = tmp_path / "link.csv"
    link.symlink_to(out)

    def half(path, low, ids, dist, unreachable):
        with open(path, "w") as fh:
            fh.write("node_id,cost\n1,")
        raise OSError(27, "File too large")

    monkeypatch.setattr(cli_sssp, "_write_costs", half)
    rc = main(["sssp", str(TINY), "--source", "node:1", "--out", str(out), "--backend", "cpu"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "File too large" in err
    assert out.read_text() == "node_id,cost\nold\n" and temps(tmp_path) == []
    monkeypatch.undo()
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    # Through a symlink: the link becomes the output, the file it named is untouched.
    assert main(["sssp", str(TINY), "--source", "node:1", "--out", str(link),
                 "--backend", "cpu"]) == 0
    assert not link.is_symlink() and link.read_text().startswith("node_id,cost\n1,0\n")
    assert out.read_text() == "node_id,cost\nold\n"


def test_generate_never_leaves_a_gr_without_its_co(tmp_path, capsys, monkeypatch):
    import maps.outputs.dimacs as dimacs

    real = dimacs._write
    calls = []

    def fail_second(path, data, *, name):
        calls.append(name)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(path, data, name=name)

    monkeypatch.setattr(dimacs, "_write", fail_second)
    out = tmp_path / "g.gr"
    assert main(["generate", "grid", "--nodes", "16", "--out", str(out)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert sorted(os.listdir(tmp_path)) == []
    monkeypatch.setattr(dimacs, "_write", real)
    assert main(["generate", "grid", "--nodes", "16", "--out", str(out)]) == 0
    assert sorted(os.listdir(tmp_path)) == ["g.co", "g.gr"]


@pytest.mark.parametrize("ext", [".npy", ".csv"])
def test_matrix_output_gets_the_umask(tmp_path, capsys, ext):
    pts = tmp_path / "p.csv"
    pts.write_text("node\n1\n2\n")
    out = tmp_path / f"m{ext}"
    rc = main(["matrix", str(TINY), "--from", str(pts), "--to", str(pts), "--out", str(out),
               "--backend", "cpu"])
    assert rc == 0, capsys.readouterr().err
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask()
    if ext == ".npy":
        assert np.load(out).shape == (2, 2)
    assert temps(tmp_path) == []
