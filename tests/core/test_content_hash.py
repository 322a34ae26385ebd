"""gpu_core.hierarchy.model.content_hash: every array hashed in fixed pieces, the pieces'
digests on threads and then hashed in order, so the digest is the same on any number of
threads, and any changed byte, dtype or shape changes it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pytest

from gpu_core.hierarchy import model


@dataclass
class _Obj:
    a: np.ndarray
    b: np.ndarray
    k: int


def _reference(obj: _Obj, piece: int) -> str:
    """The definition, written out on one thread."""
    h = hashlib.blake2b(digest_size=16)
    for name in ("a", "b", "k"):
        v = getattr(obj, name)
        h.update(name.encode())
        if isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode() + str(v.shape).encode())
            data = np.ascontiguousarray(v).tobytes()
            for at in range(0, len(data), piece):
                h.update(hashlib.blake2b(data[at:at + piece], digest_size=16).digest())
        else:
            h.update(repr(v).encode())
    return h.hexdigest()


@pytest.mark.parametrize("piece", [1, 1000, 4096, 1 << 24])
def test_the_same_digest_on_any_threads(monkeypatch, piece):
    rng = np.random.default_rng(0)
    obj = _Obj(rng.integers(0, 1 << 40, (3000, 7)), rng.random(10_001).astype(np.float32)[::2], 5)
    monkeypatch.setattr(model, "HASH_PIECE", piece)
    want = _reference(obj, piece)
    for threads in (1, 2, 16):
        monkeypatch.setattr(model, "HASH_THREADS", threads)
        assert model.content_hash(obj) == want
    obj.a[1, 2] += 1
    assert model.content_hash(obj) != want


def test_dtype_shape_and_empty_arrays_count():
    a = np.arange(12, dtype=np.int32)
    base = model.content_hash(_Obj(a, np.empty(0, np.int64), 1))
    assert model.content_hash(_Obj(a.reshape(3, 4), np.empty(0, np.int64), 1)) != base
    assert model.content_hash(_Obj(a.view(np.uint32), np.empty(0, np.int64), 1)) != base
    assert model.content_hash(_Obj(a, np.empty(0, np.int32), 1)) != base
    assert model.content_hash(_Obj(a, np.empty(0, np.int64), 2)) != base
