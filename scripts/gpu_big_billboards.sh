#!/usr/bin/env bash
# Issue 43's country-scale row (device machine, repo root; one call of ~8 minutes on an H100):
# sampled billboards K=20 eps=0.05 on the 24M-node generated map (`signpost generate kanto
# --nodes 24000000`, ~70 s, 2.75 GB), twice in new processes: the first builds the route
# index in the command, the second reads it from the map cache (goal: <= 60 s on one H100).
# Appends one line per run to $OUT/summary.txt; JSON and -v logs under $OUT.
# Env: NODES (default 24000000), K (20), EPS (0.05), BACKEND (cupy), TREE (a copy of another
# tree to run the two billboards runs from, e.g. a branch's `git archive` output), RUNS
# (default "index_built cached"; "cached" alone keeps the map cache a previous call on the
# same machine left, e.g. to run TREE's cached row after this tree's), LABEL (a suffix of
# the runs' names). The map cache may hold 40 GB (the 24M map's index is ~10 GB: the
# default 10 GB cap evicted entries as it was written).
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
NODES=${NODES:-24000000}
K=${K:-20}
EPS=${EPS:-0.05}
BACKEND=${BACKEND:-cupy}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # absolute: the runs may go from TREE
# an array, not a function: timeout runs it
SIGNPOST=("$PY" -c 'import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))')
# DUMP_S=N: every thread's Python stack into the run's log every N seconds (a run that
# seems stuck says where)
RUN=("$PY" -c 'import faulthandler, os, sys
if os.environ.get("DUMP_S"): faulthandler.dump_traceback_later(int(os.environ["DUMP_S"]), repeat=True)
from app.cli import main; sys.exit(main(sys.argv[1:]))')
WORK=${WORK:-/tmp/bigbb}
mkdir -p "$WORK"
MAP=$WORK/kanto_$NODES.spn
t0=$(date +%s.%N)
[ -f "$MAP" ] || "${SIGNPOST[@]}" generate kanto --nodes "$NODES" --out "$MAP" -q || exit 1
echo "generated $MAP in $(awk -v a="$t0" -v b="$(date +%s.%N)" "BEGIN{printf \"%.1f\", b-a}") s ($(du -h "$MAP" | cut -f1))"
RUNS=${RUNS:-index_built cached}
case " $RUNS " in *" index_built "*) rm -rf "$WORK/cache" ;; esac  # built in the command
export SIGNPOST_CACHE_MAX_GB=${SIGNPOST_CACHE_MAX_GB:-40}
for run in $RUNS; do
  name=$run${LABEL:+_$LABEL}
  t0=$(date +%s.%N)
  (cd "${TREE:-.}" && SIGNPOST_CACHE_DIR=$WORK/cache timeout "${RUN_TIMEOUT:-330}" "${RUN[@]}" -v billboards "$MAP" \
    -k "$K" --epsilon "$EPS" --backend "$BACKEND" --method sampled --json \
    >"$OUT/big_$name.json" 2>"$OUT/big_$name.log")
  rc=$?
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" "BEGIN{printf \"%.1f\", b-a}")
  $PY scripts/billboards_line.py "billboards $NODES nodes K=$K eps=$EPS $name" "$rc" "$wall" \
    "$OUT/big_$name.json" >> "$OUT/summary.txt"
  grep -h "round [0-9]*:" "$OUT/big_$name.log" | tail -n 2
  tail -n 2 "$OUT/big_$name.log"
done
