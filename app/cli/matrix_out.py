"""Writers of ``signpost matrix``'s long-form outputs, block of origins by block: CSV and
Parquet rows ``from, to, cost, from_id, to_id`` (``from``/``to``: 0-based data-row numbers of
the inputs; the ids: each row's id column, else the map's node id it resolved to).

Parquet (pyarrow, the optional ``parquet`` extra) is written as row groups of whole origins,
at most :data:`ROWS_PER_GROUP` pairs each, with ``pyarrow.parquet.ParquetWriter``, so memory
stays bounded whatever the matrix size; the groups do not depend on how the rows were
computed (chunks, Dask blocks), so any run writes the same bytes; ``cost`` is int32 when the map's total weight fits it
(no path can cost more), else int64, null when unreachable.
"""

from __future__ import annotations

import numpy as np

from app.cli import CliError
from app.jobs.matrix import CsvRows  # noqa: F401 - the one CSV format, shared with the GUI

ROWS_PER_GROUP = 1 << 20


def _id_array(pa, ids: list):
    """int64 when every id is an integer, else strings."""
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in ids):
        return pa.array(np.asarray(ids, dtype=np.int64))
    return pa.array([str(v) for v in ids], type=pa.string())


class ParquetRows:
    """A ParquetWriter fed block by block (module doc); ``close()`` finishes the file."""

    def __init__(self, path: str, from_ids: list, to_ids: list, max_cost: int):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise CliError("--out .parquet needs pyarrow: pip install 'signpost[parquet]'") \
                from None
        self.pa = pa
        from app.jobs.npy_rows import cost_dtype  # the one rule: int32 when every cost fits

        self.cost_type = pa.int32() if cost_dtype(max_cost) == np.int32 else pa.int64()
        self.fid, self.tid = _id_array(pa, from_ids), _id_array(pa, to_ids)
        self.T = len(to_ids)
        schema = pa.schema([("from", pa.int32()), ("to", pa.int32()),
                            ("cost", self.cost_type), ("from_id", self.fid.type),
                            ("to_id", self.tid.type)])
        self.writer = pq.ParquetWriter(path, schema, compression="zstd")
        self.schema = schema
        self.step = max(1, ROWS_PER_GROUP // max(self.T, 1))  # origins per row group
        self.held: list[np.ndarray] = []  # rows of the next group, not yet written
        self.held_r0 = 0

    def write(self, r0: int, block: np.ndarray) -> None:
        """Rows ``r0..`` (blocks come in source order): written a full group at a time."""
        if not self.held:
            self.held_r0 = r0
        self.held.append(block)
        have = sum(b.shape[0] for b in self.held)
        if have < self.step:
            return
        rows = np.concatenate(self.held) if len(self.held) > 1 else self.held[0]
        full = have - have % self.step
        for a in range(0, full, self.step):
            self._group(self.held_r0 + a, rows[a:a + self.step])
        self.held = [rows[full:]] if full < have else []
        self.held_r0 += full

    def _group(self, r0: int, part: np.ndarray) -> None:
        pa, T = self.pa, self.T
        k = part.shape[0]
        rows = np.repeat(np.arange(r0, r0 + k, dtype=np.int32), T)
        cols = np.tile(np.arange(T, dtype=np.int32), k)
        cost = part.reshape(-1)
        cost_arr = pa.array(cost.astype(np.int64), mask=cost < 0).cast(self.cost_type)
        self.writer.write_table(pa.Table.from_arrays(
            [pa.array(rows), pa.array(cols), cost_arr, self.fid.take(pa.array(rows)),
             self.tid.take(pa.array(cols))], schema=self.schema))

    def close(self) -> None:
        """Write the last, shorter group and finish the file."""
        if self.held:
            self._group(self.held_r0, np.concatenate(self.held))
            self.held = []
        self.writer.close()
