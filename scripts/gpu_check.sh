#!/usr/bin/env bash
# One call on the GPU machine (device tool): GPU tests, then the benchmarks, then a short
# table last. Logs and CSV/PNG go under $OUT (default ./bench_out), packed at the end into
# $OUT/results.tgz beside summary.txt and gpu.txt.
# Usage (device tool, repo root): bash scripts/gpu_check.sh [quick|full]
set -uo pipefail
MODE=${1:-quick}
OUT=${OUT:-bench_out}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
PY=${PY:-python3}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

# pymetis orders the route index (a dependency): without it the index is built by contraction
$PY -c "import pymetis" 2>/dev/null || echo "WARNING: pymetis missing (carry its wheel): every route index here is a CH, not the CCH a user's install builds" | tee -a "$OUT/gpu.txt"
echo "== GPU tests"
$PY -m pytest -q -m gpu tests/gpu -p no:cacheprovider 2>&1 | tee "$OUT/gpu_tests.log" | tail -n 15

# Each part adds its own script scripts/gpu_part_*.sh (sssp, billboards, apsp); they
# append one-line summaries to $OUT/summary.txt.
: > "$OUT/summary.txt"
for part in scripts/gpu_part_*.sh; do
  [ -f "$part" ] || continue
  echo "== $part"
  MODE=$MODE OUT=$OUT PY=$PY bash "$part" 2>&1 | tee "$OUT/$(basename "$part" .sh).log" | tail -n 40
done

echo "== summary ($(cat "$OUT/gpu.txt"))"
grep -h "passed\|failed\|error" "$OUT/gpu_tests.log" | tail -n 1
cat "$OUT/summary.txt"

# The device tool brings back at most 8 files from $OUT: everything else travels in one
# archive (logs, CSV, PNG), beside the two short files.
tar -czf "$OUT/results.tgz" -C "$OUT" --exclude results.tgz --exclude summary.txt \
  --exclude gpu.txt . && find "$OUT" -mindepth 1 -maxdepth 1 ! -name results.tgz \
  ! -name summary.txt ! -name gpu.txt -exec rm -rf {} +
