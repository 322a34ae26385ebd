#!/usr/bin/env bash
# Vertex-program part of scripts/gpu_check.sh (seed 003; device machine, repo root):
# `signpost bench vertex-programs` -- Figures 5-8 and Table 1 of the paper on the road
# graphs (DIMACS NE when .gpu_maps/NE.gr.xz was carried, the Kanto-sized generated map),
# R-MAT and random graphs, the WikiTalk / rev-WikiTalk stand-ins (skewed R-MAT of
# WikiTalk's size and its reverse: WikiTalk is not available offline) and the scaling
# graphs -- then the mutable graph's edit/compact timings. Appends one-line summaries to
# $OUT/summary.txt; CSV + PNG under $OUT/programs.
# MODE=full: the paper's sizes (1M vertices / 16M arcs, 2^15..2^20), the one line being
#   signpost bench vertex-programs --backend cupy --map .gpu_maps/NE.gr.xz --map gen:kanto --graphs rmat,random,wiki,revwiki --nodes 1048576 --arcs-per-node 16 --scaling 15:20 --repeats 1 --iterations 100 --cpu-rows road --out $OUT/programs
# (one timed run per row after a warm-up, to fit one device call: ~7 min estimated; a run
# cut short keeps the CSV/PNG of the graphs done, in order roads, synthetic, scaling;
# --scaling 15:19 caps Figure 8's top size).
# MODE=quick (default): the same graphs at 1/16 of the size, scaling 15:17, 3 runs a row.
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
MODE=${MODE:-quick}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$OUT"
signpost() { $PY -c 'import sys; from app.cli import main; sys.exit(main(sys.argv[1:]))' "$@"; }
MAPS=(--map gen:kanto)
[ -f .gpu_maps/NE.gr.xz ] && MAPS=(--map .gpu_maps/NE.gr.xz --map gen:kanto)
SIZES=(--nodes 65536 --wiki-nodes 149649 --wiki-arcs 313838 --scaling 15:17 --repeats 3)
[ "$MODE" = full ] && SIZES=(--nodes 1048576 --scaling 15:20 --repeats 1)
timeout "${PROGRAMS_TIMEOUT:-480}" bash -c "$(declare -f signpost); PY=$PY; signpost bench \
  vertex-programs --backend cupy ${MAPS[*]} --graphs rmat,random,wiki,revwiki \
  --arcs-per-node 16 ${SIZES[*]} --iterations 100 --cpu-rows road --out $OUT/programs" 2>&1 \
  | tee "$OUT/programs.log"
grep '^SUMMARY' "$OUT/programs.log" | sed 's/^SUMMARY/programs/' >> "$OUT/summary.txt" \
  || echo "programs: no summary (timeout? partial CSV/PNG in $OUT/programs)" >> "$OUT/summary.txt"
timeout 120 $PY -m gpu_core.dynamic.bench --backend cupy 2>&1 | tee "$OUT/dynamic.log"
tail -n 5 "$OUT/dynamic.log" | sed 's/^/dynamic /' >> "$OUT/summary.txt"
