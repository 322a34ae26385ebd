"""The shared .npy row writer (app.jobs.npy_rows): the bytes np.save writes, whatever the
order and size of the blocks, from any first row; bad blocks refused."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs.npy_rows import NpyRows
from gpu_core.multi_source import open_npy_memmap


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_blocks_in_any_order_give_np_save_bytes(tmp_path, dtype):
    rng = np.random.default_rng(5)
    want = rng.integers(-1, 1000, size=(37, 11)).astype(dtype)
    path = str(tmp_path / "m.npy")
    open_npy_memmap(path, want.shape, dtype)
    cuts = [0, 5, 6, 20, 37]
    spans = list(zip(cuts[:-1], cuts[1:], strict=True))
    rng.shuffle(spans)
    with NpyRows(path) as out:
        for a, b in spans:  # int64 blocks, narrowed by the writer where the file is int32
            out.put(a, want[a:b].astype(np.int64))
        assert out.finish() == int((want < 0).sum())
    np.save(tmp_path / "ref.npy", want)
    assert open(path, "rb").read() == (tmp_path / "ref.npy").read_bytes()


def test_first_row_offsets_a_block(tmp_path):
    path = str(tmp_path / "m.npy")
    open_npy_memmap(path, (6, 3), np.int32)
    with NpyRows(path, first=4) as out:
        out.put(0, np.full((2, 3), 7))
        out.finish()
    got = np.load(path)
    assert not got[:4].any() and (got[4:] == 7).all()


def test_a_block_that_does_not_fit_is_refused(tmp_path):
    path = str(tmp_path / "m.npy")
    open_npy_memmap(path, (4, 3), np.int32)
    with NpyRows(path, first=3) as out:
        with pytest.raises(ValueError, match="do not fit the 4 x 3 file"):
            out.put(0, np.zeros((2, 3), np.int64))
        with pytest.raises(ValueError, match="do not fit"):
            out.put(0, np.zeros((1, 4), np.int64))
