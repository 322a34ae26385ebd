"""The cache folder as a whole (issue 40, item 8): what it holds, its size cap and its
sweeping. Entries are the load cache's ``<key>.spn`` and the route indexes'
``ch-<key>.npz`` / ``cch-topo-<key>.npz`` (and a topology's kept metric,
``cch-kept-<key>.bin``); every ``add`` scenario saves a topology and an
index (~280 MB each on NE), so without a cap the folder grows for good.

* **Sweep**: partial ``<entry>.<pid>.tmp.npz`` files of a killed index save (and the
  atomic writer's ``.signpost-tmp-*`` temporaries) older than :data:`STALE_AFTER_S`
  whose process is gone are removed.
* **Cap**: after every save, entries are evicted least recently used first (by the later
  of their access and modification times; a load touches its entry) until the folder
  holds at most ``$SIGNPOST_CACHE_MAX_GB`` (default 10 GB). The entry just saved stays.
* ``signpost cache`` (``app/cli/cache.py``) shows the folder, its size and entries (``--json``) and clears it
  (``--clear``); only files named as entries or temporaries are ever removed, so a cache
  folder pointed at a shared place loses nothing else.

Below the load cache in the layers (it imports no reader): callers pass the folder.
"""

from __future__ import annotations

import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from osutil.atomic import sweep_stale

from .errors import MapError

log = logging.getLogger(__name__)

MAX_GB_ENV = "SIGNPOST_CACHE_MAX_GB"
DEFAULT_MAX_GB = 10.0
STALE_AFTER_S = 300.0  # a partial save this old, of a process that is gone, is swept
# the kept metric's files (app.jobs.kept_metric) are topology entries too: evicted like
# them (a closure then customizes in full), counted in the folder's size
_NAME = (r"(?:[0-9a-f]{16,64}\.spn|(?:ch|cch-topo|cch-metric)-[0-9A-Za-z_]{8,80}\.npz"
         r"|cch-kept-[0-9A-Za-z_]{8,80}\.bin)")
_ENTRY = re.compile(rf"^{_NAME}$")
_PARTIAL = re.compile(rf"^{_NAME}\.(\d+)\.tmp\.npz$")


@dataclass(frozen=True)
class Entry:
    """One cache file: its name, size in bytes, kind and last use (seconds since 1970)."""

    name: str
    bytes: int
    kind: str  # "map", "index" or "topology"
    last_used: float

    def as_dict(self) -> dict:
        return {"name": self.name, "bytes": self.bytes, "kind": self.kind,
                "last_used": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.last_used))}


def max_bytes() -> int:
    """The cap: ``$SIGNPOST_CACHE_MAX_GB`` (GB = 10**9 bytes; 0 keeps nothing but the entry
    just saved), default 10 GB. MapError for a value that is not a number >= 0."""
    text = os.environ.get(MAX_GB_ENV, "").strip()
    if not text:
        return int(DEFAULT_MAX_GB * 1e9)
    try:
        v = float(text)
    except ValueError:
        raise MapError(f"{MAX_GB_ENV}={text!r} is not a number") from None
    if not (v >= 0 and v < 1e9):
        raise MapError(f"{MAX_GB_ENV}={text!r} must be a number of GB >= 0")
    return int(v * 1e9)


def _kind(name: str) -> str:
    return "map" if name.endswith(".spn") else "topology" if name.startswith("cch-") else "index"


def entries(where: str | os.PathLike) -> list[Entry]:
    """The entries of the cache folder ``where`` (regular files only), least recently
    used first."""
    out = []
    try:
        listing = list(os.scandir(os.fspath(where)))
    except OSError:
        return []
    for e in listing:
        if not _ENTRY.match(e.name):
            continue
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        if e.is_file(follow_symlinks=False):
            out.append(Entry(e.name, st.st_size, _kind(e.name), max(st.st_atime, st.st_mtime)))
    return sorted(out, key=lambda x: (x.last_used, x.name))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def sweep(where: str | os.PathLike, *,
          older_than_s: float = STALE_AFTER_S) -> list[str]:
    """Remove partial saves (``*.tmp.npz``) and atomic-writer temporaries older than
    ``older_than_s`` whose process is gone; the names removed."""
    path = Path(where)
    gone = []
    now = time.time()
    try:
        listing = list(os.scandir(path))
    except OSError:
        return []
    for e in listing:
        m = _PARTIAL.match(e.name)
        if m is None or int(m.group(1)) == os.getpid() or _pid_alive(int(m.group(1))):
            continue
        try:
            if now - e.stat(follow_symlinks=False).st_mtime < older_than_s:
                continue
            os.unlink(e.path)
            gone.append(e.name)
        except OSError:
            continue
    try:
        sweep_stale(path, older_than_s=older_than_s)
    except OSError:
        pass
    return gone


def enforce_cap(where: str | os.PathLike, *, cap: int | None = None,
                keep: str | os.PathLike | None = None) -> list[str]:
    """Evict entries, least recently used first, until the folder holds at most ``cap``
    bytes (:func:`max_bytes`); ``keep`` (the entry just saved) is never evicted. The
    names evicted."""
    path = Path(where)
    cap = max_bytes() if cap is None else cap
    kept = os.path.basename(os.fspath(keep)) if keep is not None else None
    have = entries(path)
    total = sum(e.bytes for e in have)
    gone = []
    for e in have:
        if total <= cap:
            break
        if e.name == kept:
            continue
        try:
            os.unlink(path / e.name)
        except OSError:
            continue
        total -= e.bytes
        gone.append(e.name)
    if gone:
        log.info("cache over %.1f GB: evicted %d entries (least recently used)", cap / 1e9,
                 len(gone))
    return gone


def touch(path: str | os.PathLike) -> None:
    """Mark the entry ``path`` used now (its access time; folders mounted noatime too)."""
    try:
        os.utime(path, (time.time(), os.stat(path).st_mtime))
    except OSError:
        pass


def after_save(saved: str | os.PathLike) -> None:
    """Sweep the folder of ``saved`` and hold it to the cap (``saved`` stays). Never
    fails: a cache problem costs a rebuild later, not this run (a bad cap is logged)."""
    where = os.path.dirname(os.fspath(saved)) or "."
    sweep(where)
    try:
        enforce_cap(where, keep=saved)
    except MapError as exc:
        log.warning("%s: the cache is not capped", exc)


def clear(where: str | os.PathLike) -> tuple[int, int]:
    """Remove every entry and partial save of the folder: (files, bytes) removed."""
    path = Path(where)
    files = size = 0
    for e in entries(path):
        try:
            os.unlink(path / e.name)
        except OSError:
            continue
        files, size = files + 1, size + e.bytes
    files += len(sweep(path, older_than_s=0.0))
    return files, size
