"""Issue 40 item 15: ``--if-exists`` on ``mst``, ``pagerank`` and ``generate`` (which
never replaces a map silently); ``--if-exists fail`` suggests only what the format takes;
``SIGNPOST_CACHE_DIR`` expands ``~``; the DIMACS line-length limit holds on every path of
the reader (the fast parser too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from tests.cli.out_checks import digest as _digest
from tests.cli.out_checks import private_cache  # noqa: F401  (the fixture)
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")


pytestmark = pytest.mark.usefixtures("private_cache")


def run(capsys, *argv) -> tuple[int, str]:
    rc = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err.strip()


def one_line(capsys, *argv) -> str:
    rc, err = run(capsys, *argv)
    assert rc == 2 and len(err.splitlines()) == 1, (rc, err)
    return err


def test_generate_never_replaces_silently(tmp_path, capsys):
    out = tmp_path / "g.gr"
    assert run(capsys, "generate", "grid", "-n", "100", "--out", out)[0] == 0
    before = (_digest(out), _digest(tmp_path / "g.co"))
    err = one_line(capsys, "generate", "grid", "-n", "100", "--seed", "2", "--out", out)
    assert "exists (--if-exists fail, this command's default); choose replace or " \
           "another file" in err, err
    assert (_digest(out), _digest(tmp_path / "g.co")) == before
    assert run(capsys, "generate", "grid", "-n", "100", "--seed", "2", "--out", out,
               "--if-exists", "replace")[0] == 0
    assert _digest(out) != before[0]


def test_generate_keeps_a_coordinates_file_it_would_replace(tmp_path, capsys):
    co = tmp_path / "g.co"
    co.write_text("c someone's coordinates\n")
    err = one_line(capsys, "generate", "grid", "-n", "100", "--out", tmp_path / "g.gr")
    assert "g.co" in err and "--if-exists fail" in err
    assert co.read_text() == "c someone's coordinates\n"
    assert not (tmp_path / "g.gr").exists()


def test_generate_append_is_refused(tmp_path, capsys):
    err = one_line(capsys, "generate", "ring", "-n", "10", "--out", tmp_path / "r.spn",
                   "--if-exists", "append")
    assert "append does not apply to .spn" in err


@pytest.mark.parametrize("command", [
    ["mst", TINY],
    ["pagerank", TINY],
])
def test_mst_and_pagerank_take_if_exists(tmp_path, capsys, command):
    out = tmp_path / "o.csv"
    assert run(capsys, *command, "--out", out, "--if-exists", "fail")[0] == 0
    rows = out.read_text().splitlines()
    err = one_line(capsys, *command, "--out", out, "--if-exists", "fail")
    assert "exists (--if-exists fail); choose replace, append or another file" in err
    assert run(capsys, *command, "--out", out, "--if-exists", "append")[0] == 0
    assert out.read_text().splitlines() == rows + rows[1:]  # one header
    assert run(capsys, *command, "--out", out)[0] == 0  # default replace, as before
    assert out.read_text().splitlines() == rows


def test_mst_geojson_cannot_grow(tmp_path, capsys):
    out = tmp_path / "o.geojson"
    out.write_text("{}")
    err = one_line(capsys, "mst", TINY,
                   "--out", out, "--if-exists", "append")
    assert "append does not apply to .geojson" in err


@pytest.mark.parametrize("ext", [".npy", ".parquet", ".geojson"])
def test_if_exists_fail_suggests_only_what_works(tmp_path, capsys, ext):
    pts = tmp_path / "p.csv"
    pts.write_text("node\n1\n2\n")
    out = tmp_path / f"m{ext}"
    out.write_text("old")
    command = (["matrix", TINY, "--from", pts, "--to", pts] if ext != ".geojson"
               else ["mst", TINY])
    err = one_line(capsys, *command, "--out", out, "--if-exists", "fail")
    assert "choose replace or another file" in err and "append" not in err, err
    assert out.read_text() == "old"


def test_cache_dir_expands_the_home(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", "~/sp-cache")
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "info", TINY)[0] == 0
    assert any((tmp_path / "home" / "sp-cache").iterdir())
    assert not any(p.name.startswith("~") for p in tmp_path.iterdir())


def test_cache_dir_of_an_unknown_user_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", "~no_such_user_40x")
    monkeypatch.chdir(tmp_path)
    err = one_line(capsys, "info", TINY)
    assert "SIGNPOST_CACHE_DIR '~no_such_user_40x': no user 'no_such_user_40x'" in err
    assert not any(p.name.startswith("~") for p in tmp_path.iterdir())


@pytest.mark.parametrize("where", ["header", "arc"])
def test_dimacs_line_limit_holds_on_the_fast_path(tmp_path, capsys, monkeypatch, where):
    monkeypatch.setenv("SIGNPOST_MAX_LINE_KB", "1")
    lines = Path(TINY).read_text().splitlines()
    if where == "header":  # a well-formed file but for one long comment: the fast parser
        lines.insert(1, "c " + "x" * 3000)
        at = 2
    else:  # an arc line padded with blanks past the limit
        i = next(k for k, line in enumerate(lines) if line.startswith("a "))
        lines[i] += " " * 3000
        at = i + 1
    f = tmp_path / "long.gr"
    f.write_text("\n".join(lines) + "\n")
    err = one_line(capsys, "info", f, "--no-cache")
    assert f"long.gr:{at}: a line longer than 1 KB" in err, err


def test_line_check_is_exact_at_the_limit(monkeypatch):
    from maps.errors import MapFormatError
    from maps.source import check_line_lengths

    monkeypatch.setenv("SIGNPOST_MAX_LINE_KB", "1")
    for sizes, bad in [([1024, 1024, 5], None), ([5, 1025], 2), ([2048, 0], 1),
                       ([1, 1, 1, 3000], 4), ([1023, 1023, 1023], None)]:
        data = b"\n".join(b"x" * s for s in sizes)
        if bad is None:
            check_line_lengths(data, "f")
        else:
            with pytest.raises(MapFormatError) as e:
                check_line_lengths(data, "f")
            assert e.value.line == bad
