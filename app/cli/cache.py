"""``signpost cache [--json] [--clear]``: the cache folder, its size and entries
(``maps.cache_folder``), and clearing it."""

from __future__ import annotations

import argparse
import json

from app.cli._common import add_command

HELP = "show the cache folder (loaded maps, route indexes), its size and entries; --clear empties it"
DESCRIPTION = (
    "The cache folder ($SIGNPOST_CACHE_DIR, else ~/.cache/signpost) keeps every map loaded "
    "(.spn) and route index built (ch-*.npz, cch-topo-*.npz), so the next run reads them in "
    "a moment. It is held to $SIGNPOST_CACHE_MAX_GB (default 10) by evicting the least "
    "recently used entries after each save; partial files of killed runs are swept. "
    "--json prints folder, bytes, max_bytes and entries (name, bytes, kind, last_used); "
    "--clear removes every entry (no other file of the folder)."
)


def register(sub) -> None:
    p = add_command(sub, "cache", run, HELP, DESCRIPTION, map_file=False)
    p.add_argument("--json", action="store_true", help="print the folder and entries as JSON")
    p.add_argument("--clear", action="store_true", help="remove every cache entry")


def _size(n: int) -> str:
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else f"{n / 1e6:.1f} MB"


def run(args: argparse.Namespace) -> int:
    from maps import cache_folder
    from maps.cache import cache_dir

    where = cache_dir()
    cap = cache_folder.max_bytes()
    if args.clear:
        files, size = cache_folder.clear(where)
        if args.json:
            print(json.dumps({"folder": str(where), "removed": files, "removed_bytes": size}))
        else:
            print(f"cleared {where}: {files} files, {_size(size)}")
        return 0
    cache_folder.sweep(where)
    have = cache_folder.entries(where)
    total = sum(e.bytes for e in have)
    if args.json:
        print(json.dumps({"folder": str(where), "bytes": total, "max_bytes": cap,
                          "entries": [e.as_dict() for e in reversed(have)]}, indent=1))
        return 0
    print(f"{where}: {len(have)} entries, {_size(total)} of {_size(cap)}")
    for e in reversed(have):  # most recently used first
        print(f"  {e.as_dict()['last_used']}  {_size(e.bytes):>10}  {e.kind:<8}  {e.name}")
    return 0
