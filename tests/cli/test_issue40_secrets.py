"""Issue 40 item 14, through the real CLI: no address form prints its password — a
malformed ``--dask`` value, a map address the registry does not know, a database URI,
libpq ``key=value`` text — and ``osutil.secrets.redact`` itself on each form."""

from __future__ import annotations

import pytest

from app.cli import main
from osutil.secrets import redact
from tests.conftest import FIXTURES

TINY = str(FIXTURES / "dimacs" / "tiny.gr")
SECRET = "s3cretPW"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))


def one_line(capsys, command: str) -> str:
    cap = capsys.readouterr()
    err = cap.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"signpost {command}: error: "), err
    assert SECRET not in cap.err and SECRET not in cap.out
    return err[0]


@pytest.mark.parametrize("spec", [
    f"tcp:/bob:{SECRET}@h:1",
    f"tcp://h:1/bob:{SECRET}@",
    f"tcp://127.0.0.1:1?password={SECRET}",
    f"tcp://127.0.0.1:1?pwd={SECRET}&x=1",
    f"h:1/bob:{SECRET}@x",
    f"ws:/u:{SECRET}@h:1",
])
def test_dask_address_never_prints_its_password(tmp_path, capsys, spec):
    pytest.importorskip("distributed")
    pts = tmp_path / "p.csv"
    pts.write_text("node\n1\n2\n")
    assert main(["matrix", TINY, "--from", str(pts), "--to", str(pts), "--out",
                 str(tmp_path / "m.csv"), "--backend", "cpu", "--dask", spec]) == 2
    line = one_line(capsys, "matrix")
    assert "--dask" in line and "***" in line


@pytest.mark.parametrize("address", [
    f"postgresql:/bob:{SECRET}@h/db?table=w",
    f"postgres:bob:{SECRET}@h/db?table=w",
    f"mysql://bob:{SECRET}@h/db",
    f"http://h/x.osm?password={SECRET}",
    f"host=h password={SECRET} dbname=x",
])
def test_unknown_map_address_never_prints_its_password(capsys, address):
    assert main(["info", address]) == 2
    line = one_line(capsys, "info")
    assert "***" in line


def test_database_uri_never_prints_its_password(capsys):
    # a port that is no number: refused before any connection, the URI named without secret
    assert main(["info", f"postgresql://bob:{SECRET}@h:x/db?table=w"]) == 2
    line = one_line(capsys, "info")
    assert "bob" in line


def test_usage_error_never_prints_a_password(capsys):
    with pytest.raises(SystemExit):
        main(["info", TINY, "--no-such-option", f"tcp://u:{SECRET}@h:1"])
    assert SECRET not in capsys.readouterr().err


@pytest.mark.parametrize(("text", "want"), [
    ("tcp:/bob:pw@h:1", "tcp:***@h:1"),
    ("tcp://bob:pw@h:1", "tcp://bob:***@h:1"),
    ("tcp://h:1/bob:pw@", "tcp://h:***@"),
    ("tcp://127.0.0.1:1?password=pw", "tcp://127.0.0.1:1?password=***"),
    ("postgresql:/bob:pw@h/db?table=w", "postgresql:***@h/db?table=w"),
    ("postgresql://bob:p@w@h/db", "postgresql://bob:***@h/db"),
    ("postgresql://h/db?sslpassword=pw&table=w", "postgresql://h/db?sslpassword=***&table=w"),
    ("host=h password='p w' dbname=x", "host=h password=*** dbname=x"),
    ("host=h PWD=pw", "host=h PWD=***"),
    ("bob:pw@h:1", "bob:***@h:1"),
    # nothing to hide: unchanged
    ("tcp://127.0.0.1:8786", "tcp://127.0.0.1:8786"),
    ("postgresql://bob@h/db?table=w", "postgresql://bob@h/db?table=w"),
    ("/tmp/maps/a.osm.pbf", "/tmp/maps/a.osm.pbf"),
    ("a.csv:3: not a number", "a.csv:3: not a number"),
])
def test_redact_every_form(text, want):
    assert redact(text) == want
