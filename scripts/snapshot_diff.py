"""Compare two folders written by ``scripts/snapshot_cli.sh``, ignoring what is meant to
change between runs: timings (JSON keys ending in ``_s``/``_ms``, ``timings``; "1.20 s",
"0.8 ms" in text) and a GeoPackage's ``last_change`` stamp.

``python scripts/snapshot_diff.py BEFORE AFTER`` prints each difference; exit status 1 when
there is one.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

_TIME_TEXT = re.compile(r"\d[\d.,]*\s?(?:ms|s)\b")


def _mask(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: "T" if k == "timings" or k.endswith(("_s", "_ms")) else _mask(v)
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [_mask(v) for v in obj]
    return obj


def _text(path: Path) -> list[str]:
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            out.append(json.dumps(_mask(json.loads(line)), sort_keys=True))
        except ValueError:
            out.append(_TIME_TEXT.sub("T", line))
    return out


def _gpkg(path: Path) -> list[str]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = list(db.iterdump())
    return [re.sub(r"'\d{4}-\d\d-\d\dT[\d:.]+Z'", "'STAMP'", r) for r in rows]


def _content(path: Path) -> list[str] | bytes:
    if path.suffix == ".gpkg":
        return _gpkg(path)
    if path.suffix in (".out", ".err", ".rc", ".csv", ".json", ".geojson", ".gr", ".co"):
        return _text(path)
    return path.read_bytes()


def main(before: Path, after: Path) -> int:
    """Print the differences between two snapshot folders; 1 when there are any."""
    names = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    names |= {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    bad = 0
    for name in sorted(names):
        a, b = before / name, after / name
        if not a.exists() or not b.exists():
            print(f"only in {'after' if b.exists() else 'before'}: {name}")
            bad += 1
        elif _content(a) != _content(b):
            print(f"differs: {name}")
            bad += 1
    print(f"{len(names)} files compared, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
