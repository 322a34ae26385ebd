"""Run ``app.jobs.index_later``'s background child as the CLI starts it (a fresh process:
every kernel it asks for is seen) on a map's arrays, in the ``cold`` folders of the
index_later tests; returns the warm-up stages it recorded (stage -> compiled functions)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]



def run_index_child(cold: Path, net, kind: str | None = None, sources=(), targets=()) -> dict:
    path = cold / "g.npz"
    (cold / "maps").mkdir(exist_ok=True)
    extra = {} if kind is None else {"kind": np.array(kind)}
    np.savez(path, indptr=net.indptr, indices=net.indices, weights=net.weights,
             sources=np.asarray(sources, np.int32), targets=np.asarray(targets, np.int32),
             **extra)
    r = subprocess.run([sys.executable, "-m", "app.jobs.index_later", str(path)],
                       cwd=str(ROOT), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert not path.exists() and not (cold / "maps" / "index-warm.lock").exists()
    return {p.stem: json.loads(p.read_text())["functions"]
            for p in (cold / "numba" / "signpost-warm").glob("*.json")}
