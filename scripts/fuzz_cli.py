"""Fuzz every CLI command's argument values: ``python scripts/fuzz_cli.py --examples 1000``.

Runs each command (info, route, sssp, billboards, matrix, mst, pagerank, generate, cache; matrix
and billboards with ``--dask`` on local clusters of at most 2 workers; the light
benchmarks; ``gui`` offscreen with ``--screenshot`` to a temporary file) in-process with ``--examples`` hypothesis-drawn argument sets (see ``tests/cli/cli_fuzz.py``)
and prints per command the runs, exit-0 and exit-2 counts and any run that ended otherwise
(a traceback, another status, no error line, or longer than a minute). Exit status 1 when
a run misbehaved. The cache folder starts as FIFOs and garbage, and the maps include
headers that claim more than their file holds and Shapefiles with odd companions (issue
40). The suite runs the same engine with a few examples
(``tests/cli/test_cli_fuzz.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def fuzz_command(cmd, files, examples: int, seed_value: int):
    """(counts, misbehaving runs, vague error lines) of ``examples`` runs of ``cmd``."""
    from hypothesis import HealthCheck, given, seed, settings

    from tests.cli.cli_fuzz import argv_for, run_cli

    counts: Counter = Counter()
    problems: list = []
    vague: list = []

    @seed(seed_value)
    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=argv_for(cmd, files))
    def one(case) -> None:
        o = run_cli(*case)
        counts["runs"] += 1
        counts[f"exit {o.rc}"] += 1
        if o.problem:
            problems.append(o)
        if o.vague:
            vague.append(o)
        if o.slow:
            counts["slow"] += 1

    one()
    return counts, problems, vague


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=1000, help="argument sets per command")
    ap.add_argument("--only", nargs="*", default=None, help="commands to fuzz (default all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show-vague", type=int, default=3, help="error lines to show per command "
                    "that name neither the odd value nor its file")
    args = ap.parse_args()

    from tests.cli.cli_fuzz import commands, make_cache, make_files

    work = Path(tempfile.mkdtemp(prefix="signpost-fuzz-"))
    # issue 40: the cache starts as FIFOs and garbage (tests/cli/cli_fuzz.make_cache)
    os.environ["SIGNPOST_CACHE_DIR"] = make_cache(work)
    os.environ["SIGNPOST_MAX_INPUT_MB"] = "2"  # the bomb file decompresses past it
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # gui: no display needed
    os.environ["SIGNPOST_NO_DIALOGS"] = "1"
    os.chdir(work)
    files = make_files(work / "files")
    cmds = commands(files)
    bad = 0
    for name, cmd in cmds.items():
        if args.only and name not in args.only:
            continue
        t0 = time.perf_counter()
        counts, problems, vague = fuzz_command(cmd, files, args.examples, args.seed)
        el = time.perf_counter() - t0
        print(f"{name:<10} {counts['runs']:>6} runs  exit 0: {counts['exit 0']:>5}  "
              f"exit 2: {counts['exit 2']:>5}  slow: {counts['slow']}  problems: {len(problems)}  "
              f"error line without the value: {len(vague)}  ({el:.0f} s)", flush=True)
        for o in problems[:10]:
            print(f"   {o.argv!r}\n     {o.problem}", flush=True)
        for o in vague[:args.show_vague]:
            print(f"   vague: {o.argv!r}\n     {o.err.strip()[-200:]!r}", flush=True)
        bad += len(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
