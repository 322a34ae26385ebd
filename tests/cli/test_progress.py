"""Progress of long CLI steps (app/progress.py): a tqdm bar on a terminal, one plain line
per ~10% with rate and ETA elsewhere, nothing for short steps or with --quiet; --verbose
turns on the logging records of maps/gpu_core."""

from __future__ import annotations

import io
import logging
import re

import pytest

from app import progress
from app.cli import main
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
PLAIN_LINE = re.compile(r"^(?P<desc>[^:]+): +(?P<pct>\d+)% .*\(\d+:\d\d elapsed, .+/s, ETA (\d+:\d\d|\?)\)$")


@pytest.fixture(autouse=True)
def _reset():
    yield
    progress.configure(quiet=False, verbose=0)


def _feed(step: progress.Step, n: int = 100) -> None:
    for i in range(n + 1):
        step(i / n, f"item {i}")
    step.close()


def test_plain_lines_one_per_decile_with_rate_and_eta() -> None:
    out = io.StringIO()
    _feed(progress.Step("work", stream=out, tty=False, delay=0))
    lines = out.getvalue().splitlines()
    body = [ln for ln in lines if PLAIN_LINE.match(ln)]
    assert [int(PLAIN_LINE.match(ln)["pct"]) for ln in body] == list(range(0, 101, 10))
    assert lines[-1].startswith("work: done in ")
    assert len(lines) == 12


def test_plain_lines_name_items_per_second_when_the_size_is_known() -> None:
    out = io.StringIO()
    with progress.step("matrix", total=50, unit="origins", stream=out, tty=False, delay=0) as s:
        for i in range(1, 51):
            s.advance(i)
    assert "origins/s" in out.getvalue()


def test_short_steps_and_quiet_print_nothing() -> None:
    for kw in ({"delay": 3600}, {"delay": 0, "quiet": True}):
        out = io.StringIO()
        _feed(progress.Step("work", stream=out, tty=False, **kw))
        assert out.getvalue() == ""


def test_unknown_fraction_prints_the_message_then_waits() -> None:
    out = io.StringIO()
    s = progress.Step("search", stream=out, tty=False, delay=0)
    s(None, "searching")
    s(None, "still searching")  # within PLAIN_UNKNOWN_EVERY_S of the first: no line
    s.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("search: searching (0:00 elapsed)")
    assert len(lines) == 2 and lines[1].startswith("search: done in")


def test_terminal_draws_a_tqdm_bar_and_clears_it() -> None:
    out = io.StringIO()
    s = progress.Step("loading x.pbf", stream=out, tty=True, delay=0)
    s(0.5, "reading")
    assert progress._active == [s]
    s(1.0, "done")
    s.close()
    text = out.getvalue()
    assert "loading x.pbf:" in text and "%|" in text and "reading" in text
    assert progress._active == []


def test_terminal_bar_waits_for_its_delay() -> None:
    out = io.StringIO()
    s = progress.Step("quick", stream=out, tty=True, delay=3600)
    s(0.5, "reading")
    s(1.0, "done")
    s.close()
    assert out.getvalue() == ""


def test_track_advances_over_a_list() -> None:
    progress.configure(delay=0)
    try:
        got = list(progress.track([1, 2, 3], "bench", unit="sources"))
    finally:
        progress._config["delay"] = None
    assert got == [1, 2, 3]


def _run(argv, capsys, monkeypatch, delay="0"):
    monkeypatch.setenv("SIGNPOST_PROGRESS_DELAY", delay)
    rc = main(argv)
    return rc, capsys.readouterr()


def test_billboards_rounds_and_load_report_progress_when_not_a_terminal(capsys, monkeypatch):
    rc, cap = _run(["billboards", TINY, "-k", "2", "--backend", "cpu", "--no-cache", "--json"],
                   capsys, monkeypatch)
    assert rc == 0
    lines = cap.err.splitlines()
    rounds = [ln for ln in lines if ln.startswith("billboards: ") and "%" in ln]
    assert rounds and all(PLAIN_LINE.match(ln) for ln in rounds)
    assert "round 2 of 2" in rounds[-1] and " 100% " in rounds[-1]
    assert any(ln.startswith("loading tiny.gr: ") for ln in lines)
    assert any(ln.startswith("warming up: ") for ln in lines)


@pytest.mark.parametrize("flag", ["--quiet", "-q"])
def test_quiet_silences_progress(capsys, monkeypatch, flag):
    rc, cap = _run(["billboards", TINY, "-k", "1", "--backend", "cpu", "--no-cache", flag],
                   capsys, monkeypatch)
    assert rc == 0 and cap.err == ""
    rc, cap = _run([flag, "route", TINY, "--from", "node:1", "--to", "node:3", "--backend",
                    "cpu", "--no-cache"], capsys, monkeypatch)
    assert rc == 0 and cap.err == ""


def test_matrix_reports_batches(tmp_path, capsys, monkeypatch):
    pts = tmp_path / "p.csv"
    pts.write_text("node\n1\n2\n3\n")
    rc, cap = _run(["matrix", TINY, "--from", str(pts), "--to", str(pts), "--out",
                    str(tmp_path / "m.csv"), "--backend", "cpu", "--no-cache"], capsys, monkeypatch)
    assert rc == 0
    assert any(ln.startswith("matrix: 100% 3/3 x 3") and "origins/s" in ln
               for ln in cap.err.splitlines())


def test_default_delay_keeps_short_commands_silent(capsys, monkeypatch):
    monkeypatch.delenv("SIGNPOST_PROGRESS_DELAY")
    rc = main(["route", TINY, "--from", "node:1", "--to", "node:3", "--backend", "cpu"])
    assert rc == 0 and capsys.readouterr().err == ""


def test_verbose_logs_file_format_size_and_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    argv = ["info", TINY, "--json"]
    assert main([*argv, "-v"]) == 0
    err = capsys.readouterr().err
    assert "maps.load: opening" in err and "(dimacs," in err
    assert "nodes, 8 arcs" in err and "maps.cache: cache miss" in err
    assert "cache written" in err
    assert main(["-v", *argv]) == 0
    err = capsys.readouterr().err
    assert "maps.cache: cache hit" in err and "reader" not in err  # no debug at -v
    assert main([*argv, "-vv", "--no-cache"]) == 0
    assert "maps.load: reader formats.dimacs:load_dimacs" in capsys.readouterr().err
    assert main(argv) == 0
    assert capsys.readouterr().err == ""  # not verbose: no records


def test_verbose_logs_the_warm_up(capsys, monkeypatch):
    assert main(["route", TINY, "--from", "node:1", "--to", "node:3", "--backend", "cpu",
                 "-v"]) == 0
    assert "gpu_core.sssp.api: warm-up of auto on cpu" in capsys.readouterr().err


def test_not_verbose_leaves_the_loggers_alone() -> None:
    progress.configure(verbose=2)
    progress.configure(verbose=0)
    for name in progress.LOGGERS:
        log = logging.getLogger(name)
        assert log.propagate and log.level == logging.NOTSET and not log.handlers
