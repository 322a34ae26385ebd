#!/usr/bin/env bash
# Issue 12/26 part of scripts/gpu_check.sh: OD matrices through the route index (full,
# restricted and auto-chosen sweeps) side by side with scipy on all cores, RoutingKit's CCH
# and pandana (each peer in a child process), on NE (carry .gpu_maps/NE.gr.xz) and, in full
# mode, the Kanto-sized generated map. Appends its tables to $OUT/summary.txt.
#   MODE=quick: NE 100, 1000 and 10000; MODE=full: + Kanto 1000.
set -uo pipefail
MODE=${MODE:-quick}
OUT=${OUT:-bench_out}
PY=${PY:-python3}
mkdir -p "$OUT"
COMMON=(--backend cupy --variants batched,phast --queries auto,phast,rphast --budget-s 15
        --peer-timeout-s 150)
if [ -f .gpu_maps/NE.gr.xz ]; then
  timeout 480 $PY -m app.bench.matrix --map .gpu_maps/NE.gr.xz --sizes 100,1000,10000 \
    "${COMMON[@]}" --out "$OUT/matrix_ne" 2>&1 | tee "$OUT/matrix_ne.log" | grep -v "^ *$" \
    | tail -n 30 | sed 's/^/matrix NE: /' >> "$OUT/summary.txt"
fi
if [ "$MODE" = full ]; then
  timeout 400 $PY -m app.bench.matrix --map gen:kanto --sizes 1000 "${COMMON[@]}" --no-recustomize \
    --out "$OUT/matrix_kanto" 2>&1 | tee "$OUT/matrix_kanto.log" | grep -v "^ *$" \
    | tail -n 14 | sed 's/^/matrix Kanto: /' >> "$OUT/summary.txt"
fi
