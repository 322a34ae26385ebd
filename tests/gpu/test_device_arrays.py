"""``gpu_core.device.arrays`` (issue 41): the draw paths' fill, concatenation and column
gather without CuPy's generic kernels give what CuPy's own operations give."""

from __future__ import annotations

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

from gpu_core.device.arrays import concat, fill, gather_columns  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype,value", [(np.int32, 0x7FFFFFFF), (np.int64, 1 << 62),
                                         (np.int32, 0), (np.int64, -3), (np.uint8, 5)])
@pytest.mark.parametrize("size", [0, 1, 1000, (1 << 16) * 256 + 17])
def test_fill_equals_full(dtype, value, size):
    a = cp.arange(size, dtype=dtype)
    fill(a, value)
    np.testing.assert_array_equal(cp.asnumpy(a), np.full(size, value, dtype=dtype))


@pytest.mark.parametrize("value", [0, 9])
def test_fill_of_a_strided_view_leaves_the_rest(value):
    a = cp.arange(10, dtype=np.int64)
    fill(a[::2], value)
    want = np.arange(10)
    want[::2] = value
    np.testing.assert_array_equal(cp.asnumpy(a), want)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_concat_of_device_and_host_parts_equals_concatenate(dtype):
    rng = np.random.default_rng(1)
    host = [rng.integers(-9, 9, k).astype(dtype) for k in (5, 0, 300, 1)]
    parts = [cp.asarray(host[0]), host[1], cp.asarray(host[2]), host[3],
             cp.asarray(host[2])[::3], np.arange(4, dtype=np.int16)]  # a strided view, a cast
    want = np.concatenate([host[0], host[1], host[2], host[3], host[2][::3],
                           np.arange(4)]).astype(dtype)
    got = concat(cp, parts, dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    assert concat(cp, [], dtype).shape == (0,)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("n,K,cols", [(7, 5, [0, 4, 2, 2]), (1000, 64, list(range(0, 64, 3))),
                                      (3, 4, []), (0, 4, [1])])
def test_gather_columns_equals_fancy_indexing(dtype, n, K, cols):
    rng = np.random.default_rng(2)
    block = rng.integers(0, 1 << 30, n * K).astype(dtype)
    sel = np.asarray(cols, dtype=np.int64)
    got = gather_columns(cp, cp.asarray(block), n, K, sel)
    assert got.shape == (n, len(cols)) and got.dtype == dtype
    np.testing.assert_array_equal(cp.asnumpy(got), block.reshape(n, K)[:, sel])


@pytest.mark.parametrize("shape", [(1, 5, 2), (37, 1000, 2), (300, 3), (4, 0)])
def test_sum_rows_equals_the_host_sum(shape):
    from gpu_core.device.arrays import sum_rows

    rng = np.random.default_rng(2)
    host = rng.random(shape)
    got = sum_rows(cp, cp.asarray(host)).get()
    assert got.shape == shape[1:]
    np.testing.assert_allclose(got, host.sum(axis=0), rtol=1e-12)
