"""gpu_core.hierarchy.model.content_hash: arrays fed to blake2b in pieces (so another
thread gets the GIL between them) give the digest of the whole bytes at once: index files
saved before keep their checksums."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from gpu_core.hierarchy import model


@dataclass
class _Obj:
    a: np.ndarray
    b: np.ndarray
    k: int


def _whole(obj: _Obj) -> str:  # the hash as written before the pieces
    h = hashlib.blake2b(digest_size=16)
    for name in ("a", "b", "k"):
        v = getattr(obj, name)
        h.update(name.encode())
        if isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode() + str(v.shape).encode())
            h.update(np.ascontiguousarray(v).view(np.uint8).data)
        else:
            h.update(repr(v).encode())
    return h.hexdigest()


def test_pieces_give_the_whole_digest(monkeypatch):
    rng = np.random.default_rng(0)
    obj = _Obj(rng.integers(0, 1 << 40, (3000, 7)), rng.random(10_001).astype(np.float32)[::2], 5)
    want = _whole(obj)
    for chunk in (1, 1000, 4096, 1 << 22):
        monkeypatch.setattr(model, "HASH_CHUNK", chunk)
        assert model.content_hash(obj) == want
    obj.a[1, 2] += 1
    assert model.content_hash(obj) != want
