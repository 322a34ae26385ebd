#!/usr/bin/env bash
# Issue 28 on a machine of several GPUs (device tool: nvidia-h100-x2 / -x4; carry .whl with
# dask, distributed, dask-cuda and their missing needs, and .gpu_maps/NE.gr.xz):
# `signpost bench dask` on NE, one process against LocalCUDACluster of W workers (one per
# GPU), same bytes checked, with each worker's time per kind of work (worker_busy column).
#   WORKERS=1,2,4 SIZES=30000 K=20 EPS=0.05 bash scripts/gpu_dask.sh
# Logs and dask_bench.csv under $OUT/dask_ne; the table goes to $OUT/summary.txt.
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
WORKERS=${WORKERS:-1,2}
SIZES=${SIZES:-30000}
K=${K:-20}
EPS=${EPS:-0.05}
mkdir -p "$OUT/dask_ne"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee "$OUT/gpus.txt"
timeout ${DASK_TIMEOUT:-540} $PY -m app.bench.dask --map .gpu_maps/NE.gr.xz --sizes "$SIZES" \
  --workers "$WORKERS" --index on --billboards "$K" --epsilon "$EPS" --matrix-output written \
  --billboards-paths kept --out "$OUT/dask_ne" 2>&1 | tee "$OUT/dask_ne/bench.log" \
  | grep -v "^ *$" | tail -n 20 | sed 's/^/dask NE: /' >> "$OUT/summary.txt"
rm -f "$OUT"/dask_ne/*.npy
# The same matrix with its output in memory (tmpfs): what the GPUs give when the disk's
# write-back (one flush of the whole file, whoever writes it) is not the limit.
SHM_FREE=$(df --output=avail -B1 /dev/shm 2>/dev/null | tail -n 1)
SHM_NEED=$(( ${SIZES%%,*} * ${SIZES%%,*} * 4 * 2 + (1 << 30) ))  # two .npy files at once
if [ "${SHM:-1}" = 1 ] && [ "${SHM_FREE:-0}" -gt "$SHM_NEED" ]; then
  mkdir -p /dev/shm/dask_shm
  timeout ${SHM_TIMEOUT:-200} $PY -m app.bench.dask --map .gpu_maps/NE.gr.xz --sizes "$SIZES" \
    --workers "$WORKERS" --index on --matrix-output written --out /dev/shm/dask_shm 2>&1 \
    | tee "$OUT/dask_ne/bench_shm.log" | grep -v "^ *$" | tail -n 6 \
    | sed 's/^/dask NE (.npy in tmpfs): /' >> "$OUT/summary.txt"
  cp /dev/shm/dask_shm/dask_bench.csv "$OUT/dask_ne/dask_bench_shm.csv" 2>/dev/null
  rm -rf /dev/shm/dask_shm
else
  echo "dask NE (.npy in tmpfs): skipped, /dev/shm has ${SHM_FREE:-0} bytes free, $SHM_NEED needed" >> "$OUT/summary.txt"
fi
cat "$OUT/summary.txt"
