#!/usr/bin/env bash
# Turn restrictions part of scripts/gpu_check.sh (issue 39): `signpost bench turns` on the
# Kanto-sized generated map with bans at 5 % of its junctions against the same map without
# (one-to-all, index build, OD 1000 x 1000, drag frames, memory), on the GPU (cupy); one
# summary line appended to $OUT/summary.txt, the table in turns.log, rows in turns.csv.
# quick: 5 one-to-all sources, 4 drag frames; full: 15 and 8.
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
MODE=${MODE:-quick}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$OUT"
S=5 F=4
[ "$MODE" = full ] && S=15 && F=8
# an array, not a function: timeout runs it
SIGNPOST=("$PY" -c 'import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))')
timeout 540 "${SIGNPOST[@]}" bench turns --map gen:kanto --share 0.05 --backend cupy --sources "$S" \
  --drag-frames "$F" --csv "$OUT/turns.csv" --summary "$OUT/summary.txt" 2>&1 \
  | tee "$OUT/turns.log" || echo "bench turns map=gen:kanto backend=cupy FAILED (see turns.log)" >> "$OUT/summary.txt"
