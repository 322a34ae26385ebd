#!/usr/bin/env bash
# Vertex-program part of scripts/gpu_check.sh (seed 003; device machine, repo root):
# `signpost bench vertex-programs` on DIMACS NE (when .gpu_maps/NE.gr.xz was carried) and
# the Figure 8 scaling graphs, then the mutable graph's edit/compact timings. Appends
# one-line summaries to $OUT/summary.txt; CSVs under $OUT/programs*.
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
MODE=${MODE:-quick}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$OUT"
signpost() { $PY -c 'import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))' "$@"; }
SCALING=15:16
[ "$MODE" = full ] && SCALING=15:20
MAP=gen:random:1048576
[ -f .gpu_maps/NE.gr.xz ] && MAP=.gpu_maps/NE.gr.xz
timeout 300 bash -c "$(declare -f signpost); PY=$PY; signpost bench vertex-programs --map $MAP \
  --backend cupy --scaling $SCALING --out $OUT/programs" 2>&1 | tee "$OUT/programs.log"
grep '^SUMMARY' "$OUT/programs.log" | sed 's/^SUMMARY/programs/' >> "$OUT/summary.txt" \
  || echo "programs map=$MAP: see programs.log" >> "$OUT/summary.txt"
timeout 120 $PY -m gpu_core.dynamic.bench --backend cupy 2>&1 | tee "$OUT/dynamic.log"
tail -n 4 "$OUT/dynamic.log" | sed 's/^/dynamic /' >> "$OUT/summary.txt"
