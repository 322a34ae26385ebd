#!/usr/bin/env bash
# Issue 26 part of scripts/gpu_check.sh: the route index (CCH) built on the GPU host (its
# cores + the GPU's customization) on NE (carry .gpu_maps/NE.gr.xz) and, in full mode, the
# Kanto-sized generated map; the full customization on the device against the host's
# (scripts/profile_customize.py); re-customization after 10 closures; one-to-all searches through
# the index (bench sssp --index). Appends its lines to $OUT/summary.txt.
set -uo pipefail
MODE=${MODE:-quick}
OUT=${OUT:-bench_out}
PY=${PY:-python3}
mkdir -p "$OUT"
maps=()
[ -f .gpu_maps/NE.gr.xz ] && maps+=(.gpu_maps/NE.gr.xz)
if [ "$MODE" = full ]; then
  $PY -c "from app.cli import main; main(['generate', 'kanto', '--out', '$OUT/kanto.spn', '-q'])" && maps+=("$OUT/kanto.spn")
fi
for m in "${maps[@]}"; do
  name=$(basename "$m")
  timeout 300 $PY scripts/bench_index_build.py "$m" --backend cupy 2>&1 \
    | tee "$OUT/index_$name.log" | grep -v '^ *$' | tail -n 6 | sed "s/^/index $name: /" \
    >> "$OUT/summary.txt"
  timeout 300 $PY scripts/profile_customize.py "$m" 2>&1 | tee "$OUT/customize_$name.log" \
    | grep -E 'customization|equal' | sed "s/^/customize $name: /" >> "$OUT/summary.txt"
  timeout 300 $PY -m app.bench.sssp --map "$m" --backend cupy --strategies auto --sources 20 \
    --no-figures --index --out "$OUT/sssp_index_$name" 2>&1 | tee "$OUT/sssp_index_$name.log" \
    | grep -E 'auto|index' | tail -n 4 | sed "s/^/sssp+index $name: /" >> "$OUT/summary.txt"
done
rm -f "$OUT/kanto.spn"
