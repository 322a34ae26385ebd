#!/usr/bin/env bash
# Billboards part of scripts/gpu_check.sh (seed 002 Figure 4 on the GPU). Appends one-line
# summaries to $OUT/summary.txt; CSV/PNG under $OUT/billboards.
# MODE=quick: the road grid with 2048 sources per round + the full work-efficient K=10 run,
# R-MAT, the networkx ratio. MODE=full adds Andorra and the sampled run on NE (needs
# .gpu_maps/NE.gr.xz: carry it).
set -uo pipefail
MODE=${MODE:-quick}
OUT=${OUT:-bench_out}
PY=${PY:-python3}
mkdir -p "$OUT/billboards"
ARGS=(--k-max 10 --sources 2048 --budget-s 20 --out "$OUT/billboards" --summary "$OUT/summary.txt")
if [ "$MODE" = full ]; then
  MAPS=(--map gen:grid:31041)
  [ -f .gpu_maps/andorra_length.spn ] && MAPS+=(--map .gpu_maps/andorra_length.spn)
  NE=()
  [ -f .gpu_maps/NE.gr.xz ] && NE=(--ne .gpu_maps/NE.gr.xz --ne-k 20 --epsilon 0.1)
  $PY -m app.bench.billboards "${ARGS[@]}" "${MAPS[@]}" "${NE[@]}"
else
  $PY -m app.bench.billboards "${ARGS[@]}" --map gen:grid:31041
fi
