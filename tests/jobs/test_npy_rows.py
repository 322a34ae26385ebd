"""The shared .npy row writer (app.jobs.npy_rows): the bytes np.save writes, whatever the
order and size of the blocks, from any first row; bad blocks refused."""

from __future__ import annotations

import numpy as np
import pytest

from app.jobs.npy_rows import NpyRows, cost_dtype, create_npy, max_cost


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_blocks_in_any_order_give_np_save_bytes(tmp_path, dtype):
    rng = np.random.default_rng(5)
    want = rng.integers(-1, 1000, size=(37, 11)).astype(dtype)
    path = str(tmp_path / "m.npy")
    create_npy(path, want.shape, dtype)
    cuts = [0, 5, 6, 20, 37]
    spans = list(zip(cuts[:-1], cuts[1:], strict=True))
    rng.shuffle(spans)
    with NpyRows(path) as out:
        for a, b in spans:  # int64 blocks, narrowed by the writer where the file is int32
            out.put(a, want[a:b].astype(np.int64))
        assert out.finish() == int((want < 0).sum())
    np.save(tmp_path / "ref.npy", want)
    assert open(path, "rb").read() == (tmp_path / "ref.npy").read_bytes()


def test_unreachable_pairs_counted_per_tag_behind_a_bounded_queue(tmp_path, monkeypatch):
    # the writer threads count each put's -1 entries under its tag; put() waits while
    # DEPTH blocks (THREADS slices each) are queued
    import threading

    from app.jobs import npy_rows

    gate = threading.Event()
    real = NpyRows._write
    held = []

    def slow(self, r0, block, tag):
        gate.wait()
        held.append(len(self._pending))
        return real(self, r0, block, tag)

    monkeypatch.setattr(NpyRows, "_write", slow)
    rng = np.random.default_rng(2)
    want = rng.integers(-1, 5, size=(12, 7)).astype(np.int32)
    path = str(tmp_path / "m.npy")
    create_npy(path, want.shape, np.int32)
    with NpyRows(path) as out:
        t = threading.Timer(0.2, gate.set)
        t.start()
        for i, tag in enumerate((10, 10, 20, 30, 30, 30)):
            out.put(2 * i, want[2 * i:2 * i + 2].astype(np.int64), tag=tag)
            assert len(out._pending) <= npy_rows.DEPTH * npy_rows.THREADS
        total = out.finish()
    assert total == int((want < 0).sum())
    blocks = [want[0:4], want[4:6], want[6:12]]
    assert out.by_tag == {tag: int((b < 0).sum()) for tag, b in zip((10, 20, 30), blocks,
                                                                     strict=True)}
    assert np.array_equal(np.load(path), want) and max(held) <= npy_rows.DEPTH * npy_rows.THREADS


def test_first_row_offsets_a_block(tmp_path):
    path = str(tmp_path / "m.npy")
    create_npy(path, (6, 3), np.int32)
    with NpyRows(path, first=4) as out:
        out.put(0, np.full((2, 3), 7))
        out.finish()
    got = np.load(path)
    assert not got[:4].any() and (got[4:] == 7).all()


def test_a_block_that_does_not_fit_is_refused(tmp_path):
    path = str(tmp_path / "m.npy")
    create_npy(path, (4, 3), np.int32)
    with NpyRows(path, first=3) as out:
        with pytest.raises(ValueError, match="do not fit the 4 x 3 file"):
            out.put(0, np.zeros((2, 3), np.int64))
        with pytest.raises(ValueError, match="do not fit"):
            out.put(0, np.zeros((1, 4), np.int64))


def test_one_dtype_rule_for_every_matrix_file(tmp_path):
    """int32 exactly while the weights' sum (the dearest path) fits; the Parquet cost
    column follows the same rule (issue 38: the rule was written out in four places)."""
    edge = np.iinfo(np.int32).max
    assert max_cost(np.array([edge - 1, 1], np.int32)) == edge
    assert cost_dtype(edge) == np.int32 and cost_dtype(edge + 1) == np.int64
    pa = pytest.importorskip("pyarrow")
    from app.cli.matrix_out import ParquetRows

    for most, want in ((edge, pa.int32()), (edge + 1, pa.int64())):
        pq = ParquetRows(str(tmp_path / f"{most}.parquet"), [1], [2], most)
        pq.close()
        assert pq.cost_type == want
