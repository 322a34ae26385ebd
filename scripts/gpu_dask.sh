#!/usr/bin/env bash
# Issue 28 on a machine of several GPUs (device tool: nvidia-h100-x2 / -x4; carry .whl with
# dask, distributed, dask-cuda and their missing needs, and .gpu_maps/NE.gr.xz):
# `signpost bench dask` on NE, one process against LocalCUDACluster of W workers (one per
# GPU), same bytes checked, with each worker's time per kind of work (worker_busy column).
#   WORKERS=1,2,4 SIZES=30000 K=20 EPS=0.05 bash scripts/gpu_dask.sh
#   BIG=1 WORKERS=2 bash scripts/gpu_dask.sh   # only the 24M-node map's 10,000 x 10,000
#   NEED=H100 BIG=1 WORKERS=2,4 bash scripts/gpu_dask.sh   # nothing runs on other cards
#   CUPY_GPU_MEMORY_LIMIT=84934656000 BIG=1 ...   # on H200s: an H100's pool (its sweep
#     width), every process alike; a stand-in for the ratios, not an H100 measurement
# Logs and dask_bench.csv under $OUT/dask_ne (dask_24m); the table goes to $OUT/summary.txt.
set -uo pipefail
OUT=${OUT:-bench_out}
PY=${PY:-python3}
WORKERS=${WORKERS:-1,2}
SIZES=${SIZES:-30000}
K=${K:-20}
EPS=${EPS:-0.05}
mkdir -p "$OUT/dask_ne"
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader | tee "$OUT/gpus.txt"
# NEED=H100: stop at once (exit 3) on other cards, before any device time goes to a run
# whose figures would not count (the device tool may give H200s for an H100 kind)
if [ -n "${NEED:-}" ] && grep -qv "$NEED" "$OUT/gpus.txt"; then
  echo "not every GPU is an $NEED: stopping"; exit 3
fi
if [ "${BIG:-0}" = 1 ]; then  # the 24M-node map (generated: 70-80 s, 2.75 GB in /tmp)
  mkdir -p "$OUT/dask_24m"
  $PY -c "from app.cli import main; main()" generate kanto --nodes 24000000 --out /tmp/k24.spn -q
  timeout ${DASK_TIMEOUT:-480} $PY -m app.bench.dask --map /tmp/k24.spn --sizes 10000 \
    --workers "$WORKERS" --index on --backend cupy --matrix-output written --out /tmp/d24 2>&1 \
    | tee "$OUT/dask_24m/bench.log" | grep -v "^ *$" | tail -n 8 \
    | sed 's/^/dask 24M: /' >> "$OUT/summary.txt"
  cp /tmp/d24/dask_bench.csv "$OUT/dask_24m/" 2>/dev/null
  cat "$OUT/summary.txt"
  exit 0
fi
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
