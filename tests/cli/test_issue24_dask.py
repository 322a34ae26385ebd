"""Issue 24 item 4, through the real CLI: every bad ``--dask`` value is one line, exit 2,
within 10 s, and never shows a password; ``local:N`` is capped to the machine; ``-q``
silences distributed's warnings on Ctrl-C. (The same bytes of Parquet with and without
Dask: ``tests/jobs/test_distributed.py``, which has a cluster.)"""

from __future__ import annotations

import logging
import socket
import threading
import time

import pytest

pytest.importorskip("distributed")

from app.cli import main  # noqa: E402
from tests.conftest import FIXTURES  # noqa: E402

TINY = str(FIXTURES / "dimacs" / "tiny.gr")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGNPOST_CACHE_DIR", str(tmp_path / "cache"))
    # quiet_dask() sets these for the worker processes it starts: undo after each test
    for name in ("DISTRIBUTED", "TORNADO", "BOKEH"):
        monkeypatch.delenv(f"DASK_LOGGING__{name}", raising=False)
    levels = {n: logging.getLogger(n).level for n in ("distributed", "tornado", "bokeh")}
    yield
    for n, lv in levels.items():
        logging.getLogger(n).setLevel(lv)


def matrix(tmp_path, *extra, out="m.csv"):
    pts = tmp_path / "p.csv"
    pts.write_text("node\n1\n2\n3\n")
    return main(["matrix", TINY, "--from", str(pts), "--to", str(pts), "--out",
                 str(tmp_path / out), "--backend", "cpu", *extra])


def one_error_line(capsys, tmp_path, out="m.csv") -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("signpost matrix: error: "), err
    assert not any(p.name.startswith(out) for p in tmp_path.iterdir())
    return err[0]


@pytest.mark.parametrize(("spec", "needle"), [
    ("tcp://user:s3cret@127.0.0.1:1", "no user name or password"),
    ("tcp://:s3cret@127.0.0.1:1", "no user name or password"),
    ("admin:s3cret@127.0.0.1:8786", "no user name or password"),
    ("http://127.0.0.1:1", "http:// is not supported"),
    ("tls://127.0.0.1:1", "tls:// is not supported"),
    ("inproc://x", "inproc:// is not supported"),
    ("ws://u:s3cret@h:1", "ws:// is not supported"),
    ("", "give local, local:N or tcp://HOST:PORT"),
    ("   ", "give local, local:N or tcp://HOST:PORT"),
    ("tcp://127.0.0.1", "a port 1-65535"),
    ("tcp://127.0.0.1:99999", "a port 1-65535"),
    ("tcp://127.0.0.1:١٥", "a port 1-65535"),
    ("tcp://127.0.0.1:1/x", "nothing after the port"),
    ("tcp://127.0.0.1:1?timeout=5", "nothing after the port"),
    ("local:١٥", "local:N needs a worker count"),
    ("local:-1", "local:N needs a worker count"),
])
def test_bad_address_one_line_no_secret(tmp_path, capsys, spec, needle):
    t0 = time.monotonic()
    assert matrix(tmp_path, "--dask", spec) == 2
    assert time.monotonic() - t0 < 10  # refused before connecting
    line = one_error_line(capsys, tmp_path)
    assert needle in line and "s3cret" not in line


def test_parse_spec_keeps_good_addresses():
    from app.jobs.dask_address import parse_spec, shown

    assert parse_spec(" tcp://[::1]:8786 ") == ("tcp://[::1]:8786", None)
    assert parse_spec("TCP://h:1/") == ("tcp://h:1", None)
    assert parse_spec("sched.example:8786") == ("tcp://sched.example:8786", None)
    assert shown("tcp://u:p@h:1/x") == "tcp://h:1/x" and shown("u:p@h:1") == "h:1"


class _Peer:
    """A TCP server on 127.0.0.1 that is no Dask scheduler: it sends ``banner`` to every
    connection (None: it accepts and stays silent), then keeps it open (or ``hang_up``)."""

    def __init__(self, banner: bytes | None, hang_up: bool = False):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.banner, self.hang_up = banner, hang_up
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            if self.banner is not None:
                c.sendall(self.banner)
            if self.hang_up:
                c.close()

    def close(self) -> None:
        self.sock.close()
        for c in self.conns:
            c.close()


@pytest.mark.parametrize(("banner", "hang_up", "needle"), [
    (b"HTTP/1.1 400 Bad Request\r\nServer: nginx\r\nContent-Length: 0\r\n\r\n", False,
     "does not speak the Dask protocol (it sent 'HTTP/1.1')"),
    (b"SSH-2.0-OpenSSH_9.6\r\n", False, "does not speak the Dask protocol"),
    (None, False, "accepted the connection but sent nothing"),
    (b"\x20\x00\x00\x00\x00\x00\x00\x00short", True, "closed the connection"),
    (b"\x20\x00\x00\x00\x00\x00\x00\x00" + b"x" * 32, False, "no Dask handshake"),
])
def test_a_port_that_is_no_dask_scheduler_ends_within_10_s(tmp_path, capsys, banner,
                                                           hang_up, needle):
    peer = _Peer(banner, hang_up)
    try:
        t0 = time.monotonic()
        assert matrix(tmp_path, "--dask", f"tcp://127.0.0.1:{peer.port}") == 2
        took = time.monotonic() - t0
    finally:
        peer.close()
    line = one_error_line(capsys, tmp_path)
    assert needle in line and f"127.0.0.1:{peer.port}" in line
    # CONNECT_TIMEOUT_S is 10 s for the whole connection; the rest: a shared slow machine
    assert took < 25, took


def test_local_n_is_capped_to_the_machine(tmp_path, capsys, monkeypatch):
    from app.jobs import distributed as dist

    monkeypatch.setattr(dist, "_cores", lambda: 1)
    assert matrix(tmp_path, out="one.csv") == 0
    assert matrix(tmp_path, "--dask", "local:99999", out="two.csv") == 0
    cap = capsys.readouterr()
    assert "note: --dask local:99999: this machine has 1 core; starting 1 worker" in cap.err
    assert "1 Dask workers" in cap.out
    assert (tmp_path / "one.csv").read_bytes() == (tmp_path / "two.csv").read_bytes()


def _warn_on_worker() -> int:
    logging.getLogger("distributed.worker").warning("signpost-test: worker closing")
    return logging.getLogger("distributed.worker").getEffectiveLevel()


def test_quiet_silences_distributed_warnings_on_ctrl_c(tmp_path, capfd, monkeypatch):
    """Ctrl-C while the rows are written, on a local cluster of 2: with -q, the one line
    'interrupted'; what distributed logs as WARNING while it closes (here and in the
    worker processes, as its nannies and workers do on Ctrl-C) is not shown: both log
    only errors."""
    from app.cli import matrix_out
    from app.jobs import distributed as dist

    def interrupt(self, r0, block):
        raise KeyboardInterrupt

    real_close = dist.Cluster.close
    levels: list = []

    def close(self):
        levels.extend(self.client.run(_warn_on_worker).values())
        logging.getLogger("distributed.nanny").warning("signpost-test: nanny closing")
        levels.append(logging.getLogger("distributed.nanny").getEffectiveLevel())
        time.sleep(0.5)  # the workers' stderr reaches the file
        real_close(self)

    monkeypatch.setattr(matrix_out.CsvRows, "lines", interrupt)
    monkeypatch.setattr(dist.Cluster, "close", close)
    rc = main(["-q", "matrix", TINY, "--from", _pts(tmp_path), "--to", _pts(tmp_path),
               "--out", str(tmp_path / "m.csv"), "--backend", "cpu", "--dask", "local:2"])
    err = capfd.readouterr().err
    assert rc == 130 and err.strip().splitlines() == ["signpost matrix: interrupted"], err
    assert levels == [logging.ERROR] * 3  # two workers and this process
    assert not (tmp_path / "m.csv").exists()


def _pts(tmp_path) -> str:
    pts = tmp_path / "p.csv"
    pts.write_text("node\n1\n2\n3\n")
    return str(pts)
