"""How fast one file takes a matrix's bytes on this machine (issue 28's `.npy` output):
P processes each `pwrite` their own contiguous range of one file (plain, or made with
`posix_fallocate` first), 64 MiB at a time, then one `fdatasync`; the wall time covers
the writes and the flush. Also each process into a file of its own, for comparison.

    python scripts/bench_file_writes.py /tmp 3.6        # folder, GiB
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
import time

import numpy as np

CHUNK = 64 << 20


def _worker(path: str, lo: int, hi: int) -> None:
    buf = np.full(CHUNK // 4, 7, np.int32).data.cast("B")
    fd = os.open(path, os.O_RDWR)
    try:
        off = lo
        while off < hi:
            n = min(CHUNK, hi - off)
            os.pwrite(fd, buf[:n], off)
            off += n
        if path.endswith(".own"):
            os.fdatasync(fd)
    finally:
        os.close(fd)


def run(folder: str, total: int, mode: str, procs: int) -> None:
    path = os.path.join(folder, "bench_file_writes.bin")
    per = total // procs
    paths = [f"{path}{i}.own" for i in range(procs)] if mode == "own files" else [path] * procs
    for p in set(paths):
        fd = os.open(p, os.O_RDWR | os.O_CREAT | os.O_TRUNC)
        if mode == "fallocate":
            os.posix_fallocate(fd, 0, total)
        os.close(fd)
    ranges = [(0, per) if mode == "own files" else (i * per, (i + 1) * per)
              for i in range(procs)]
    t0 = time.perf_counter()
    ps = [mp.Process(target=_worker, args=(paths[i], *ranges[i])) for i in range(procs)]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    if mode != "own files":
        fd = os.open(path, os.O_RDWR)
        os.fdatasync(fd)
        os.close(fd)
    t = time.perf_counter() - t0
    print(f"{mode:10s} {procs} writer(s): {t:.2f} s, {total / t / 1e9:.2f} GB/s", flush=True)
    for p in set(paths):
        os.unlink(p)


def main() -> None:
    folder = sys.argv[1]
    total = int(float(sys.argv[2]) * 2**30) // (4 * CHUNK) * (4 * CHUNK)
    for mode in ("plain", "fallocate", "own files"):
        for procs in (1, 2, 4):
            run(folder, total, mode, procs)


if __name__ == "__main__":
    main()
