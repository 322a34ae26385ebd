#!/usr/bin/env bash
# The rows issues 41 and 43 still need from one H100, in one call of ~8 minutes (device
# machine, repo root; carry the wheels of .whl/ and .gpu_maps/NE.gr.xz):
#   1. the GPU tests of the billboards, route index and device-array paths;
#   2. (FIRST=0: skipped) `bench first --backend cupy` for the rows never run on a GPU (exact billboards,
#      route with the index, the 3x3 matrix with the index built in the command), then the exact billboards' row again with
#      CuPy's precompiled NVRTC headers (CUPY_NVRTC_USE_PCH=1, CUDA >= 12.8);
#   3. NE K=20 eps=0.05 sampled billboards with the route index cached, three new
#      processes (goal: <= 4 s of compute in every run); with TREE_B=DIR (a copy of another
#      tree, e.g. `git archive tied-pinned app gpu_core maps osutil resources | tar -x -C
#      DIR`), three runs of that tree alternated with this one's, on the same caches;
#      TREE_FIRST=DIR likewise runs step 2's exact billboards' row from that tree.
# One line per result in $OUT/summary.txt (printed last); logs and JSON under $OUT/open.
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$OUT/open"
OUT=$(cd "$OUT" && pwd)  # absolute: steps 2 and 3 run from other trees too
: >> "$OUT/summary.txt"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
echo "device: $GPU" >> "$OUT/summary.txt"
$PY -c "import pymetis" 2>/dev/null || echo "WARNING: pymetis missing: route indexes are CHs" >> "$OUT/summary.txt"

timeout 200 $PY -m pytest -q -m gpu -p no:cacheprovider tests/gpu/test_billboards_progressive_gpu.py \
  tests/gpu/test_betweenness_gpu.py tests/gpu/test_hierarchy_gpu.py tests/gpu/test_device_arrays.py \
  tests/gpu/test_compile_ahead_gpu.py >"$OUT/open/tests.log" 2>&1
echo "tests: $(tail -n 1 "$OUT/open/tests.log")" >> "$OUT/summary.txt"

SIGNPOST=("$PY" -c 'import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))')
first() {  # $1: label, $2: tree to run from; the rest: bench first's --only rows
  local label=$1 tree=$2
  shift 2
  (cd "$tree" && timeout 150 "${SIGNPOST[@]}" bench first --backend cupy "$@" \
    --doc "$OUT/open/first_$label.md" --label "$GPU" >"$OUT/open/first_$label.log" 2>&1)
  grep -E '^\| (route|matrix|billboards)' "$OUT/open/first_$label.md" | head -n 6 \
    | sed "s/^/first $label: /" >> "$OUT/summary.txt"
}
# FIRST=0 skips this step (a call about the NE rows only)
[ "${FIRST:-1}" = 0 ] || first rows "$PWD" --only "billboards -k 5" --only "route --index on" \
  --only "matrix 3x3 --index on, built in the command"
[ "${FIRST:-1}" = 0 ] || CUPY_NVRTC_USE_PCH=1 first pch "$PWD" --only "billboards -k 5"
# TREE_FIRST=DIR: the exact billboards' row from another tree (e.g. branch exact-first)
[ -n "${TREE_FIRST:-}" ] && first tree_first "$TREE_FIRST" --only "billboards -k 5"

NE=$PWD/.gpu_maps/NE.gr.xz
if [ -f "$NE" ]; then
  CACHE=$(mktemp -d)
  ne() {  # $1: label, $2: tree to run from
    local t0 t1 rc
    t0=$(date +%s.%N)
    (cd "$2" && NUMBA_CACHE_DIR=$CACHE/numba CUPY_CACHE_DIR=$CACHE/cupy SIGNPOST_CACHE_DIR=$CACHE/maps \
      timeout 150 "${SIGNPOST[@]}" -v billboards "$NE" -k 20 --epsilon 0.05 --backend cupy \
      --method sampled --json >"$OUT/open/ne_$1.json" 2>"$OUT/open/ne_$1.log")
    rc=$?
    t1=$(date +%s.%N)
    $PY scripts/billboards_line.py "NE K=20 $1" "$rc" "$(awk -v a="$t0" -v b="$t1" \
      'BEGIN{print b-a}')" "$OUT/open/ne_$1.json" >> "$OUT/summary.txt"
  }
  ne warm_up "$PWD"  # builds the index and fills the kernel caches
  for i in 1 2 3; do
    ne "cached_$i" "$PWD"
    [ -n "${TREE_B:-}" ] && ne "cached_b_$i" "$TREE_B"
  done
  rm -rf "$CACHE"
fi
cat "$OUT/summary.txt"
