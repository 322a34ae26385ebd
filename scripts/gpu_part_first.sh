#!/usr/bin/env bash
# First-contact part of scripts/gpu_check.sh (issues 41 and 43, device machine, repo root):
#   1. `signpost bench first --backend cupy` on the sample map: cold (numba's, CuPy's and the
#      map cache empty) against warm, per command (goal: the first GPU answer <= 2x the second);
#   2. sampled billboards on NE (carry .gpu_maps/NE.gr.xz), K=20 eps=0.05, whole process, three
#      states in turn: a fresh install (every cache empty), the kernels cached but the route
#      index built in the command, everything cached (goals: <= 15 s with the index built,
#      <= 4 s of compute with it cached).
# One line per run appended to $OUT/summary.txt; each run's JSON and -v log under $OUT/first.
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
MODE=${MODE:-quick}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$OUT/first"
# an array, not a function: timeout runs it
SIGNPOST=("$PY" -c 'import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))')
ROWS=(--only route --only "billboards -k 5 --method sampled")
[ "$MODE" = full ] && ROWS=()
timeout 300 "${SIGNPOST[@]}" bench first --backend cupy "${ROWS[@]}" --doc "$OUT/first/bench_first.md" \
  --label "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)" 2>&1 \
  | tee "$OUT/first/bench_first.log" | tail -n 25
grep -E '^\| (route|billboards)' "$OUT/first/bench_first.md" | head -n 4 \
  | sed 's/^/first cupy: /' >> "$OUT/summary.txt"

NE=.gpu_maps/NE.gr.xz
[ -f "$NE" ] || exit 0
$PY -c "import pymetis" 2>/dev/null || echo "first NE: WARNING pymetis missing: the index below is a CH, not a user's CCH" >> "$OUT/summary.txt"
# CACHE (env): the cache folders (default a new temporary one, removed at the end)
KEEP=${CACHE:+1}
CACHE=${CACHE:-$(mktemp -d)}
rm -rf "${CACHE:?}"/{numba,cupy,maps,xdg}
run_ne() {  # $1: label; the caches under $CACHE as they stand
  local t0 t1
  t0=$(date +%s.%N)
  NUMBA_CACHE_DIR=$CACHE/numba CUPY_CACHE_DIR=$CACHE/cupy SIGNPOST_CACHE_DIR=$CACHE/maps \
    XDG_CACHE_HOME=$CACHE/xdg timeout 240 "${SIGNPOST[@]}" -v billboards "$NE" -k 20 --epsilon 0.05 \
    --backend "${BACKEND:-cupy}" --method sampled --json >"$OUT/first/ne_$1.json" 2>"$OUT/first/ne_$1.log"
  local rc=$?
  t1=$(date +%s.%N)
  $PY scripts/billboards_line.py "first NE K=20 eps=0.05 $1" "$rc" \
    "$(awk -v a="$t0" -v b="$t1" "BEGIN{print b-a}")" "$OUT/first/ne_$1.json" >> "$OUT/summary.txt"
}
run_ne fresh
rm -rf "$CACHE/maps" "$CACHE/xdg"  # the kernels stay: the index is built in the command
run_ne index_built
run_ne cached
[ -n "$KEEP" ] || rm -rf "$CACHE"
