"""The free device memory that sizes the GPU's blocks stays within CuPy's pool limit."""

from __future__ import annotations

import pytest

from gpu_core.device.memory import pool_capped

GIB = 1 << 30


class Pool:
    """CuPy's MemoryPool as ``pool_capped`` reads it: a limit and the bytes it holds."""

    def __init__(self, limit: int, held: int):
        self.limit, self.held = limit, held

    def get_limit(self) -> int:
        return self.limit

    def total_bytes(self) -> int:
        return self.held


@pytest.mark.parametrize("free,total,limit,held,want", [
    (139 * GIB, 141 * GIB, 0, 5 * GIB, (139 * GIB, 141 * GIB)),   # no limit: the card's
    (139 * GIB, 141 * GIB, 80 * GIB, 0, (80 * GIB, 80 * GIB)),     # an H100's on an H200
    (139 * GIB, 141 * GIB, 80 * GIB, 30 * GIB, (50 * GIB, 80 * GIB)),  # less what it holds
    (20 * GIB, 141 * GIB, 80 * GIB, 30 * GIB, (20 * GIB, 80 * GIB)),   # others took the card
    (139 * GIB, 141 * GIB, 8 * GIB, 9 * GIB, (0, 8 * GIB)),            # past it: none left
])
def test_pool_limit_caps_free_and_total(free, total, limit, held, want):
    assert pool_capped(free, total, Pool(limit, held)) == want
