#!/usr/bin/env bash
# APSP part of scripts/gpu_check.sh: GPU tests of gpu_core.multi_source, then seed 000's
# Tables 1-2 (signpost bench apsp); one-line summaries appended to $OUT/summary.txt.
# Usage: MODE=quick|full OUT=dir PY=python3 bash scripts/gpu_part_apsp.sh
set -uo pipefail
MODE=${MODE:-quick}
OUT=${OUT:-bench_out}
PY=${PY:-python3}
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
if [ "$MODE" = full ]; then
  ARGS=(--sizes 1024,2048,4096,8192,16384,32768 --table both --budget 2 --download --ablation --fw-max 32768 --budget-fw 30)
else
  ARGS=(--sizes 1024,4096,32768 --table 1 --budget 0.5 --fw-max 4096)
fi
$PY -m pytest -q -p no:cacheprovider tests/gpu/test_multi_source_gpu.py 2>&1 | tee "$OUT/apsp_tests.log" | tail -n 5
echo "apsp tests: $(grep -E 'passed|failed|error|skipped' "$OUT/apsp_tests.log" | tail -n 1)" >> "$OUT/summary.txt"
# Called without the full CLI so that no other command's imports are needed here.
$PY - "${ARGS[@]}" --out-dir "$OUT" --summary "$OUT/summary.txt" <<'PYEOF'
import argparse, sys
from app.bench import apsp
p = argparse.ArgumentParser(prog="signpost bench apsp")
apsp.add_arguments(p)
sys.exit(apsp.run(p.parse_args(sys.argv[1:])))
PYEOF
