"""The billboards' DAG rows packed in numpy (no compilation, issue 41): the same arrays as
the row-by-row copy it replaces."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.betweenness.cpu import pack_rows


def _by_rows(c_order, c_deg, c_heads, c_len):
    o, d, h = [], [], []
    for j in range(c_len.shape[0]):
        cv, ch = int(c_len[j, 0]), int(c_len[j, 1])
        o.append(c_order[j, :cv])
        d.append(c_deg[j, :cv])
        h.append(c_heads[j, :ch])
    cat = np.concatenate
    return (cat(o) if o else c_order[:0, 0], cat(d) if d else c_deg[:0, 0],
            cat(h) if h else c_heads[:0, 0])


@pytest.mark.parametrize("rows", [0, 1, 7])
def test_pack_rows_equals_the_row_copy(rows):
    rng = np.random.default_rng(rows)
    n, m = 50, 120
    c_order = rng.integers(0, 2**16, (rows, n)).astype(np.uint16)
    c_deg = rng.integers(0, 255, (rows, n)).astype(np.uint8)
    c_heads = rng.integers(0, 2**16, (rows, m)).astype(np.uint16)
    c_len = np.stack([rng.integers(0, n + 1, rows), rng.integers(0, m + 1, rows)],
                     axis=1).astype(np.int64).reshape(rows, 2)
    if rows > 2:
        c_len[1] = 0  # a source whose row was not kept
        c_len[2] = (n, m)  # a full row
    got, want = pack_rows(c_order, c_deg, c_heads, c_len), _by_rows(c_order, c_deg, c_heads, c_len)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    # into the pools' free space (between entries already there and beyond)
    tv, th = int(c_len[:, 0].sum()), int(c_len[:, 1].sum())
    pools = [np.full(k + 10, 7, x.dtype) for k, x in ((tv, c_order), (tv, c_deg), (th, c_heads))]
    out = (pools[0][3:3 + tv], pools[1][3:3 + tv], pools[2][3:3 + th])
    assert pack_rows(c_order, c_deg, c_heads, c_len, out=out) is out
    for p, w, k in zip(pools, want, (tv, tv, th), strict=True):
        np.testing.assert_array_equal(p[3:3 + k], w)
        assert (p[:3] == 7).all() and (p[3 + k:] == 7).all()


def test_pack_rows_needs_no_compilation():
    from numba.core.dispatcher import Dispatcher

    assert not isinstance(pack_rows, Dispatcher)
