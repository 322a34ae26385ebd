"""``signpost bench turns`` (issue 39): the rows on a tiny generated map, and the answers
with bans (one-to-all, the OD matrix through the route index) equal to the independent
turn-aware oracle's (tests/turn_oracle.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.bench import turns as bench
from maps.turn_bans import junctions, plain_of, random_bans, with_bans
from tests.turn_oracle import oracle_dist

SPEC = "gen:kanto:1600"


@pytest.fixture(scope="module")
def maps():
    return bench.prepare(SPEC, 0.3, 2)


def test_bans_at_the_share_of_junctions(maps):
    plain, restricted, rules, _ = maps
    assert len(rules) == round(0.3 * junctions(plain).size) > 50
    assert {r.kind for r in rules} == {"no", "only"}
    tr = restricted.meta["turn_restrictions"]
    assert tr["applied"] == len(rules) and tr["node_copies"] > 0
    assert restricted.num_nodes == plain.num_nodes + tr["node_copies"]


def test_answers_with_bans_equal_the_oracle(maps):
    plain, restricted, rules, _ = maps
    src = bench.file_nodes(plain, 4, 5)
    free = [bench.one_to_all(plain, int(s), "cpu") for s in src]
    want = [oracle_dist(plain, rules, int(s)) for s in src]
    detours = 0
    for s, w, f in zip(src.tolist(), want, free, strict=True):
        assert np.array_equal(bench.one_to_all(restricted, s, "cpu"), w), s
        detours += int((w != f).sum())
    assert detours > 0  # the bans change answers: the check above can fail
    h, _ = bench.build_index(restricted, "cpu")
    tgt = bench.file_nodes(plain, 30, 6)
    got = bench.od_matrix(restricted, h, src, tgt, "cpu")
    assert np.array_equal(got, np.stack(want)[:, tgt])


def test_rows_and_outputs(tmp_path, capsys):
    import argparse

    p = argparse.ArgumentParser()
    bench.add_arguments(p)
    csv_path, summ = tmp_path / "t.csv", tmp_path / "summary.txt"
    args = p.parse_args(["--map", SPEC, "--share", "0.05", "--backend", "numpy", "--sources", "2", "--od", "20",
                         "--drag-frames", "1", "--warm-up", "0", "--json", "--csv",
                         str(csv_path), "--summary", str(summ)])
    assert bench.run(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["backend"] == "cpu" and out["share"] == 0.05 and out["applied"] == out["restrictions"] > 0
    names = [r["row"] for r in out["rows"]]
    assert names == ["one-to-all", "index build", "OD 20x20", "drag frame", "memory"]
    for r in out["rows"]:
        assert tuple(r) == bench.ROW_KEYS
        assert r["with"] > 0 and r["without"] > 0 and isinstance(r["met"], bool)
    mem = out["rows"][-1]
    assert mem["goal"] == "<= 1.1x" and mem["ratio"] > 1.0  # copies (and the view) cost bytes
    d = out["details"]  # the copies-near search and the copies-last one, side by side
    assert d["one_to_all_view_bytes"] > 0 and mem["with"] - d["one_to_all_view_bytes"] < \
        1.1 * mem["without"]
    # the view serves instead of the map's own CSR: released, counted once
    assert d["map_csr_released"] is True
    assert d["memory_csr_held_bytes"] > mem["with"] and \
        d["index_less_bytes"]["with"] < 1.1 * d["index_less_bytes"]["without"]
    assert set(d["one_to_all_ms"]) == {"without", "with", "with_copies_last", "ratio_copies_last"}
    assert csv_path.read_text().splitlines()[0] == ",".join(bench.ROW_KEYS)
    assert summ.read_text().startswith("bench turns map=gen:kanto:1600 backend=cpu")


def test_share_out_of_range():
    net = plain_of(bench.prepare("gen:kanto:400", 0.0, 1)[0])
    assert random_bans(net, 0.0) == []
    assert with_bans(net, []).num_nodes == net.num_nodes
    with pytest.raises(ValueError, match="share 1.5"):
        random_bans(net, 1.5)


@pytest.mark.parametrize("argv, msg", [(["--share", "1.5"], "--share 1.5: give a fraction"),
                                       (["--od", "0"], "--od 0: give at least 1")])
def test_bad_options_one_line(argv, msg, capsys):
    from app.cli import main

    assert main(["bench", "turns", "--map", "gen:kanto:400", "--warm-up", "0", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and msg in err[0]


def test_the_warm_up_map_is_past_every_serial_bound():
    """The warm-up must compile what the real rows run: the parallel kernels, which the
    route index and the keys' pass take only above their small-map bounds."""
    from app.bench.turns import WARM_UP_NODES
    from gpu_core.host.serial import SMALL_NODES

    assert WARM_UP_NODES > SMALL_NODES and WARM_UP_NODES > 1 << 15
