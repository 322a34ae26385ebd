#!/usr/bin/env bash
# Billboards part of scripts/gpu_check.sh (seed 002 Figure 4 on the GPU). Appends one-line
# summaries to $OUT/summary.txt; tables in the log, CSV/PNG under $OUT/billboards*.
#   quick: the Shizuoka-sized road grid (31,041 nodes; kernels compared on 2048 sources per
#          round, then the full work-efficient K=10 run), the Twitter-sized R-MAT, the
#          networkx ratio.
#   full:  + work-efficient layout sweep, the Andorra extract and a complete graph, and the
#          sampled method on NE (carry .gpu_maps: andorra_length.spn, NE.gr.xz).
#   goals: issue 5's two goals only (app.bench.billboards --goals).
set -uo pipefail
MODE=${MODE:-quick}
OUT=${OUT:-bench_out}
PY=${PY:-python3}
mkdir -p "$OUT"
COMMON=(--k-max 10 --sources 2048 --budget-s 3 --summary "$OUT/summary.txt")
if [ "$MODE" = goals ]; then
  # issue 5 only: near-far sweep, exact K=10 on the 31K grid, sampled K=20 on NE to the end
  timeout 170 $PY -m app.bench.billboards --goals --map gen:grid:31041 --k-max 10 \
    --ne .gpu_maps/NE.gr.xz --ne-k 20 --epsilon 0.2,0.15,0.1 --nf-factors 0,4 \
    --summary "$OUT/summary.txt"
elif [ "$MODE" = full ]; then
  MAPS=(--map gen:grid:31041)
  [ -f .gpu_maps/andorra_length.spn ] && MAPS+=(--map .gpu_maps/andorra_length.spn)
  timeout 300 $PY -m app.bench.billboards "${COMMON[@]}" "${MAPS[@]}" \
    --we-configs 256x4,128x8,256x4:warp,128x8:warp \
    --social gen:rmat:9481:26 --social gen:complete:1000 --nx-nodes 64 --nx-k 2 \
    --out "$OUT/billboards"
  if [ -f .gpu_maps/NE.gr.xz ]; then
    timeout 300 $PY -m app.bench.billboards --map gen:grid:100 --social '' --k-max 1 \
      --kernels work_efficient --nx-k 0 --ne .gpu_maps/NE.gr.xz --ne-k 20 --epsilon 0.2 \
      --summary "$OUT/summary.txt" --out "$OUT/billboards_ne"
  fi
else
  timeout 300 $PY -m app.bench.billboards "${COMMON[@]}" --map gen:grid:31041 \
    --nx-nodes 49 --nx-k 2 --out "$OUT/billboards"
fi
