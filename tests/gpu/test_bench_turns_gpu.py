"""``signpost bench turns --backend cupy`` (issue 39): on the GPU the answers with bans
(one-to-all folded, the OD matrix through the route index) and with turn penalties are the
CPU's bytes, and the bench's rows come out."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

from app.bench import turns as bench  # noqa: E402
from gpu_core.sssp import sssp  # noqa: E402
from maps.model.turn_penalties import with_turn_penalties  # noqa: E402
from maps.model.turns import fold  # noqa: E402

pytestmark = pytest.mark.gpu
SPEC = "gen:kanto:40000"  # above the small-work size: the GPU kernels run


@pytest.fixture(scope="module")
def maps():
    return bench.prepare(SPEC, 0.05, 1)


def test_bans_gpu_equals_cpu(maps):
    _, restricted, _, _ = maps
    src = bench.file_nodes(restricted, 3, 7)
    for s in src.tolist():
        assert np.array_equal(bench.one_to_all(restricted, s, "cupy"),
                              bench.one_to_all(restricted, s, "cpu")), s
    h, _ = bench.build_index(restricted, "cupy")
    tgt = bench.file_nodes(restricted, 64, 8)
    assert np.array_equal(bench.od_matrix(restricted, h, src, tgt, "cupy"),
                          bench.od_matrix(restricted, h, src, tgt, "cpu"))


def test_penalties_gpu_equals_cpu(maps):
    _, restricted, _, _ = maps
    net = with_turn_penalties(restricted, {"left": 50000, "right": 10000, "u": 200000})
    for s in (0, 12345):
        a, b = (sssp(net, s, backend=be) for be in ("cupy", "cpu"))
        assert np.array_equal(fold(net, np.where(a.reached, a.dist, -1)),
                              fold(net, np.where(b.reached, b.dist, -1)))


def test_bench_rows_on_cupy(capsys):
    p = argparse.ArgumentParser()
    bench.add_arguments(p)
    args = p.parse_args(["--map", SPEC, "--backend", "cupy", "--sources", "2", "--od", "32",
                         "--drag-frames", "2", "--warm-up", "0", "--json"])
    assert bench.run(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["backend"] == "cupy" and [r["row"] for r in out["rows"]][0] == "one-to-all"
