"""CUDA backend of the repair (kernels in ``repair.cu``): the mutable graph's own device
arrays (``MutableGraph.device``: arcs by id, state bytes, the inserted arcs' lists; no
host rebuild, no compaction), the base graph's reverse CSR built on the device once per
graph, and the previous result's keys and predecessors kept on the device per result (a
repair of a repair uploads nothing; the first repair from a host result uploads them).

One launch of one block does the repair; the host then reads one status word and
downloads the (vertex, key, pred) triples that changed. Stamps make every per-vertex flag
O(1) to reset (a counter per call): besides one device-to-device copy of the previous
key/pred (the new result's own arrays), the device work follows the edited part, not n.
Imported only when CuPy is usable.
"""

from __future__ import annotations

import threading
import weakref
from pathlib import Path
from typing import Any

import cupy as cp
import numpy as np

from ..device import get_kernel, memory
from ..host.result_buffers import device_copies, remember
from ..keys import KEY_INF, NO_PRED

HERE = Path(__file__).resolve().parent
BLOCK = 1024
PREFIX = 2048  # triples read with the status words (more: a second copy)
_lock = threading.Lock()


def _kernel(name: str):
    return get_kernel(HERE / "repair.cu", name)


class Workspace:
    """Per-graph device arrays: stamps (int32 per vertex, grown with the graph), the base
    reverse CSR, the work lists (sized by the limit) and the call / tick counters."""

    def __init__(self, mg):
        h = mg.host
        dev = mg.device
        m0 = int(h.base_indptr[-1])
        need = (h.n0 + 1) * 8 + m0 * 8 + 3 * 4 * dev.first_extra.shape[0]
        memory.ensure_free(need, "the repair workspace")
        with memory.oom_as_typed("the repair workspace", need):
            heads = dev.head[:m0]
            self.rev_ids = cp.argsort(heads).astype(cp.int64)
            ptr = cp.zeros(h.n0 + 1, cp.int64)
            if m0:
                ptr[1:] = cp.cumsum(cp.bincount(heads, minlength=h.n0))
            self.rev_ptr = ptr
        self.stamps_n = 0
        self.call = 0
        self.tick = 1
        self.lists: dict[str, Any] = {}  # CuPy work lists by name
        self.ins_version = -1
        self.ins = None
        self._grow_stamps(dev.first_extra.shape[0])

    def _grow_stamps(self, n: int) -> None:
        if n <= self.stamps_n:
            return
        memory.ensure_free(12 * n, "repair stamps")
        with memory.oom_as_typed("repair stamps", 12 * n):
            self.flag = cp.zeros(n, cp.int32)
            self.qstamp = cp.zeros(n, cp.int32)
            self.done = cp.zeros(n, cp.int32)
        self.stamps_n = n
        self.call, self.tick = 0, 1

    def list(self, name: str, size: int, dtype):
        a = self.lists.get(name)
        if a is None or a.shape[0] < size:
            memory.ensure_free(size * np.dtype(dtype).itemsize, "repair lists")
            with memory.oom_as_typed("repair lists", size * np.dtype(dtype).itemsize):
                a = cp.empty(max(size, 1024), dtype)
            self.lists[name] = a
        return a

    def inserted(self, mg):
        """(heads sorted, arc ids) of the inserted arcs on the device, per graph version."""
        if self.ins_version != mg.version:
            h, dev = mg.host, mg.device
            m0 = int(h.base_indptr[-1])
            k = h.total - m0
            if k:
                heads = dev.head[m0: h.total].astype(cp.int64)
                order = cp.argsort(heads)
                self.ins = (heads[order], (order + m0).astype(cp.int64), k)
            else:
                z = cp.zeros(1, cp.int64)
                self.ins = (z, z, 0)
            self.ins_version = mg.version
        return self.ins


_workspaces: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _workspace(mg) -> Workspace:
    with _lock:
        ws = _workspaces.get(mg)
        if ws is None:
            ws = _workspaces[mg] = Workspace(mg)
        return ws


def _device_previous(previous, n: int):
    """Working device copies (new size n) of the previous result's key and pred."""
    hit = device_copies(previous.key)
    n_old = int(previous.key.shape[0])
    memory.ensure_free(12 * n, "the repaired result")
    with memory.oom_as_typed("the repaired result", 12 * n):
        key = cp.empty(n, cp.uint64)
        pred = cp.empty(n, cp.int32)
        if hit is not None:
            key[:n_old] = hit[0][:n_old]
            pred[:n_old] = hit[1][:n_old]
        else:
            key[:n_old] = cp.asarray(previous.key).view(cp.uint64)
            pred[:n_old] = cp.asarray(previous.pred)
        key[n_old:] = np.uint64(KEY_INF)
        pred[n_old:] = NO_PRED
    return key, pred


def _arcs_struct(mg, ws: Workspace, ks) -> tuple:
    dev = mg.device
    ins_heads, ins_ids, k = ws.inserted(mg)
    # the fields of repair.cu's struct Arcs, in order
    return (np.int64(dev.n0), dev.base_indptr, dev.first_extra, dev.next_extra, dev.head,
            dev.tail, dev.weight, dev.state, ws.rev_ptr, ws.rev_ids, ins_heads, ins_ids,
            np.int64(k), np.int32(ks.hop_bits))


def run(mg, previous, plan, ks, limit: int, opts, budget_s: float | None = None):
    """(status "ok" or why not, key, pred, dist, affected, telemetry rows, extra).
    ``budget_s``: device time after which the kernel gives up (None: no limit)."""
    from .cpu import scatter_result

    n = mg.num_nodes
    ws = _workspace(mg)
    ws._grow_stamps(mg.device.first_extra.shape[0])
    if ws.call > (1 << 29) or ws.tick > (1 << 30):
        ws.flag.fill(0)
        ws.qstamp.fill(0)
        ws.done.fill(0)
        ws.call, ws.tick = 0, 1
    ws.call += 1
    lim = max(1, min(int(limit), n))  # each list holds a vertex at most once
    budget_ns = int(budget_s * 1e9) if budget_s else 0
    heads = plan.edited_heads
    packed = np.concatenate([plan.roots, plan.dec_tails, plan.dec_heads, plan.dec_kw,
                             heads]).astype(np.int64)
    start = cp.cuda.Event()
    end = cp.cuda.Event()
    start.record()
    key, pred = _device_previous(previous, n)
    dplan = cp.asarray(packed) if packed.size else cp.zeros(1, cp.int64)
    qcap = lim + int(plan.dec_tails.size) + 1024
    outcap = min(16 * (lim + int(heads.size)) + 4096, n + 1)
    inv = ws.list("inv", lim + 1, cp.int32)
    seedk = ws.list("seedk", lim + 1, cp.uint64)
    touched = ws.list("touched", lim + 1, cp.int32)
    qa = ws.list("qa", qcap, cp.int32)
    qb = ws.list("qb", qcap, cp.int32)
    outv = ws.list("outv", outcap, cp.int32)
    # status words, then (vertex, key, pred) triples: one buffer, read with one copy
    buf = ws.list("result", 16 + 3 * outcap, cp.int64)
    args = _arcs_struct(mg, ws, ks) + (
        key, pred, dplan, np.int64(plan.roots.size), np.int64(plan.dec_tails.size),
        np.int64(heads.size), ws.flag, ws.qstamp, ws.done, np.int32(ws.call),
        np.int32(ws.tick), inv, seedk, touched, np.int64(lim), qa, qb, np.int64(qcap), outv,
        np.int64(outcap), np.int64(opts.max_rounds), np.int64(budget_ns), buf, buf[16:])
    _kernel("repair_tree")((1,), (BLOCK,), args)
    s = buf[: 16 + 3 * PREFIX].get()  # status and (mostly) every triple
    rounds = int(s[4])
    ws.tick += rounds + 2
    code, n_inv, n_touch, n_out = int(s[0]), int(s[1]), int(s[2]), int(s[3])
    t = [int(x) for x in s[7:12]]
    us = [max(0.0, (t[i + 1] - t[i]) / 1e3) if t[i + 1] else 0.0 for i in range(4)]
    rows = [("repair_invalidate", n_inv, 0, us[0]), ("repair_seed", int(s[6]), 0, us[1]),
            ("repair_settle", n_touch, int(s[5]), us[2]), ("repair_pred", n_out, 0, us[3])]
    if code:
        end.record()
        why = {1: f"the edits affect more than {lim} vertices (limit of RepairOptions)",
               2: f"the repair needs more than {opts.max_rounds} rounds (RepairOptions)",
               3: "a repair list overflowed",
               4: f"the repair ran past its device-time budget ({budget_ns / 1e6:.2f} ms: "
                  f"RepairOptions.budget_fraction of a fresh search)"}[code]
        return why, None, None, None, n_inv + n_touch, rows, {}
    host = s[16: 16 + 3 * n_out]
    if n_out > PREFIX:
        host = np.concatenate([host, buf[16 + 3 * PREFIX: 16 + 3 * n_out].get()])
    end.record()
    end.synchronize()
    gpu_ms = cp.cuda.get_elapsed_time(start, end)
    idx, kv, pv = host[0::3], host[1::3], host[2::3]
    key_h, pred_h, dist_h = scatter_result(previous, n, idx, kv, pv.astype(np.int32), ks)
    remember(key_h, key, pred)
    extra = {"changed": n_out, "rounds": rounds, "gpu_ms": gpu_ms}
    return "ok", key_h, pred_h, dist_h, n_inv + n_touch, rows, extra

