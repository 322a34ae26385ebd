#!/usr/bin/env bash
# SSSP part of scripts/gpu_check.sh (device machine, repo root): `signpost bench sssp` on
# the generated Kanto-sized map and on DIMACS NE (when .gpu_maps/NE.gr.xz was carried);
# one summary line per map is appended to $OUT/summary.txt.
# Env: OUT (default bench_out), PY (python3), MODE quick|full (sources per map),
# SSSP_BENCH_ARGS (extra arguments, e.g. --auto-sweep).
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
MODE=${MODE:-quick}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
N=10
BUDGET=6
[ "$MODE" = full ] && N=30 && BUDGET=30
mkdir -p "$OUT"
signpost() { $PY -c 'import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))' "$@"; }
for M in gen:kanto .gpu_maps/NE.gr.xz; do
  case $M in gen:*) tag=${M#gen:} ;; *) [ -f "$M" ] || continue; tag=$(basename "$M" .gr.xz) ;; esac
  echo "== bench sssp $M ($N sources)"
  # shellcheck disable=SC2086
  signpost bench sssp --map "$M" --sources "$N" --backend cupy --budget-s "$BUDGET" \
    --out "$OUT/sssp_$tag" ${SSSP_BENCH_ARGS:-} 2>&1 | tee "$OUT/sssp_$tag.log"
  grep '^SUMMARY' "$OUT/sssp_$tag.log" | sed 's/^SUMMARY/sssp/' >> "$OUT/summary.txt" \
    || echo "sssp map=$M FAILED (see sssp_$tag.log)" >> "$OUT/summary.txt"
done
