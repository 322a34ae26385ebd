"""Progress and log lines on stderr for long command-line steps (the CLI and ``signpost bench``).

A :class:`Step` is a ``Progress`` callback (``step(fraction, message)``, what every job in
``app.jobs`` and every map reader already reports through). On a terminal it draws a tqdm
bar; when stderr is not a terminal (a log file, CI, ``nohup``) it prints one plain line per
~10% with the rate and the time left, so a long run never stays silent. Steps that end
within ``delay`` seconds print nothing, which keeps short commands' stderr as it was.
:func:`configure` (called once by ``signpost``'s ``main``) applies ``--quiet`` (no
progress) and ``--verbose`` (``logging`` records of ``app``, ``maps`` and ``gpu_core``: -v
info, -vv debug). Qt-free; imports tqdm only when a bar is drawn.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO, TypeVar

T = TypeVar("T")

# Seconds a step must run before it shows anything (short steps stay silent): a bar on a
# terminal after 1 s, plain lines after 5 s. SIGNPOST_PROGRESS_DELAY sets both (the test
# suite sets it high so that a slow machine does not add lines to checked stderr).
TTY_DELAY_S = 1.0
PLAIN_DELAY_S = 5.0
# Seconds between two plain lines of a step whose fraction is unknown.
PLAIN_UNKNOWN_EVERY_S = 10.0
LOGGERS = ("app", "maps", "gpu_core")

_config: dict = {"quiet": False, "delay": None}
_active: list[Step] = []  # steps drawing a bar now (log records are written above them)


def _env_delay() -> float | None:
    try:
        return float(os.environ["SIGNPOST_PROGRESS_DELAY"])
    except (KeyError, ValueError):
        return None


def configure(*, quiet: bool = False, verbose: int = 0, delay: float | None = None) -> None:
    """``--quiet``: no progress; ``--verbose`` (count): log records of app/maps/gpu_core at
    INFO (1) or DEBUG (2+) on stderr; ``delay``: seconds before a step shows (tests use 0)."""
    _config["quiet"] = bool(quiet)
    if delay is not None:
        _config["delay"] = float(delay)
    for name in LOGGERS:  # undo an earlier configure (tests call main() many times)
        log = logging.getLogger(name)
        for h in [h for h in log.handlers if isinstance(h, _StderrHandler)]:
            log.removeHandler(h)
        log.setLevel(logging.NOTSET)
        log.propagate = True
    if verbose <= 0:
        return
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s", "%H:%M:%S"))
    for name in LOGGERS:
        log = logging.getLogger(name)
        log.setLevel(logging.DEBUG if verbose >= 2 else logging.INFO)
        log.addHandler(handler)
        log.propagate = False  # once on stderr, not again through a root handler


class _StderrHandler(logging.Handler):
    """Log records on the current stderr, written above a bar being drawn (tqdm.write)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            msg = self.format(record)
            if _active and _active[-1]._bar is not None:
                from tqdm import tqdm

                tqdm.write(msg, file=sys.stderr)
            else:
                print(msg, file=sys.stderr, flush=True)
        except Exception:  # a log line must never stop a run
            self.handleError(record)


def _fmt_s(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Step:
    """One long step; call it as ``step(fraction or None, message)``.

    ``total``/``unit``: the step's size in items (rates are then items/s, else %/s).
    ``stream`` (default stderr) and ``tty`` (default ``stream.isatty()``) pick the bar or
    the plain lines; ``quiet`` and ``delay`` default to :func:`configure`'s.
    """

    def __init__(self, desc: str, *, total: float | None = None, unit: str = "",
                 stream: TextIO | None = None, tty: bool | None = None,
                 quiet: bool | None = None, delay: float | None = None) -> None:
        self.desc = desc
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = _config["quiet"] if quiet is None else quiet
        isatty = getattr(self.stream, "isatty", None)
        self.tty = (bool(isatty()) if isatty else False) if tty is None else tty
        for d in (delay, _config["delay"], _env_delay(), TTY_DELAY_S if self.tty else PLAIN_DELAY_S):
            if d is not None:
                self.delay = d
                break
        self.t0 = time.perf_counter()
        self.fraction: float | None = None
        self.message = ""
        self.shown = False  # printed a plain line
        self._decile = -1
        self._last_plain = -math.inf
        self._bar: Any = None  # the tqdm bar (tqdm ships no types), made by the first draw

    # -- the Progress callback -------------------------------------------------------
    def __call__(self, fraction: float | None, message: str = "") -> None:
        if self.quiet:
            return
        if fraction is not None:
            fraction = min(max(float(fraction), 0.0), 1.0)
            self.fraction = fraction
        self.message = message or self.message
        if self.tty:
            self._draw()
        else:
            self._plain(fraction)

    def _draw(self) -> None:
        if self._bar is None:
            from tqdm import tqdm

            known = self.fraction is not None
            fmt = ("{desc}: {percentage:3.0f}%|{bar:24}| {elapsed}<{remaining}{postfix}" if known
                   else "{desc}: {elapsed}{postfix}")
            self._bar = tqdm(total=1000 if known else None, desc=self.desc, file=self.stream,
                             bar_format=fmt, delay=self.delay, leave=False, dynamic_ncols=True,
                             mininterval=0.2)
            _active.append(self)
        self._bar.set_postfix_str(self.message, refresh=False)
        n = int(round(self.fraction * 1000)) if self.fraction is not None else 0
        shown = time.perf_counter() - self.t0 >= self.delay  # refresh() ignores tqdm's delay
        if self._bar.total and n // 10 != self._bar.n // 10 and shown:
            self._bar.n = n
            self._bar.refresh()  # a new percent: draw now
        else:
            self._bar.n = n if self._bar.total else self._bar.n
            self._bar.update(0)  # else at most every mininterval

    def _plain(self, fraction: float | None) -> None:
        el = time.perf_counter() - self.t0
        if el < self.delay:
            return
        if fraction is None:
            if el - self._last_plain >= PLAIN_UNKNOWN_EVERY_S:
                self._last_plain = el
                self._line(f"{self.message} ({_fmt_s(el)} elapsed)")
            return
        decile = int(fraction * 10 + 1e-9)
        if decile <= self._decile:
            return
        self._decile = decile
        rate = (f"{fraction * self.total / el:,.3g} {self.unit}/s".strip() if self.total
                else f"{100 * fraction / el:.3g} %/s") if el > 0 else "? /s"
        eta = el * (1 - fraction) / fraction if fraction > 0 else math.inf
        msg = f" {self.message}" if self.message else ""
        self._line(f"{100 * fraction:3.0f}%{msg} ({_fmt_s(el)} elapsed, {rate}, "
                   f"ETA {_fmt_s(eta)})")

    def _line(self, text: str) -> None:
        self.shown = True
        print(f"{self.desc}: {text}", file=self.stream, flush=True)

    # -- counting and closing --------------------------------------------------------
    def advance(self, done: float, message: str = "") -> None:
        """Report ``done`` of ``total`` items."""
        self(done / self.total if self.total else None, message)

    def close(self, stopped: BaseException | None = None) -> None:
        """End the step: its last plain line says "done in", or with ``stopped`` (the
        exception that ended it: Ctrl-C, an error) "interrupted after"/"stopped after"."""
        if self._bar is not None:
            self._bar.close()
            _active.remove(self)
            self._bar = None
        elif self.shown:
            el = _fmt_s(time.perf_counter() - self.t0)
            if stopped is None:
                self._line(f"done in {el}")
            else:
                how = "interrupted" if isinstance(stopped, KeyboardInterrupt) else "stopped"
                self._line(f"{how} after {el}")
            self.shown = False

    def __enter__(self) -> Step:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(exc)


@contextmanager
def step(desc: str, **kw) -> Iterator[Step]:
    """``with step("loading x.pbf") as p: load(..., progress=p)``."""
    s = Step(desc, **kw)
    try:
        yield s
    except BaseException as exc:  # Ctrl-C, an error, a generator closed early
        s.close(exc)
        raise
    s.close()


def track(items: Iterable[T], desc: str, *, total: int | None = None, unit: str = "") -> Iterator[T]:
    """``items`` with a :class:`Step` advanced after each (benchmark loops)."""
    if total is None:
        total = len(items) if hasattr(items, "__len__") else None  # type: ignore[arg-type]
    with step(desc, total=total, unit=unit) as s:
        for i, item in enumerate(items):
            yield item
            s.advance(i + 1, f"{i + 1}/{total}" if total else f"{i + 1}")
