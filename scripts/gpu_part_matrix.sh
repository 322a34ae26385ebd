#!/usr/bin/env bash
# Issue 12 part of scripts/gpu_check.sh: OD matrices with and without the route index, side
# by side with scipy on all cores (app.bench.matrix), on NE (carry .gpu_maps/NE.gr.xz) and
# the Kanto-sized generated map. Appends its tables to $OUT/summary.txt.
#   MODE=quick: NE 1000 and 10000; MODE=full: + Kanto 1000 (its index build takes ~3 min).
set -uo pipefail
MODE=${MODE:-quick}
OUT=${OUT:-bench_out}
PY=${PY:-python3}
mkdir -p "$OUT"
COMMON=(--backend cupy --variants batched,phast --budget-s 15 --no-cch)
if [ -f .gpu_maps/NE.gr.xz ]; then
  timeout 400 $PY -m app.bench.matrix --map .gpu_maps/NE.gr.xz --sizes 1000,10000 \
    "${COMMON[@]}" --out "$OUT/matrix_ne" 2>&1 | tee "$OUT/matrix_ne.log" | grep -v "^ *$" \
    | tail -n 12 | sed 's/^/matrix NE: /' >> "$OUT/summary.txt"
fi
if [ "$MODE" = full ]; then
  timeout 400 $PY -m app.bench.matrix --map gen:kanto --sizes 1000 "${COMMON[@]}" \
    --out "$OUT/matrix_kanto" 2>&1 | tee "$OUT/matrix_kanto.log" | grep -v "^ *$" \
    | tail -n 8 | sed 's/^/matrix Kanto: /' >> "$OUT/summary.txt"
fi
