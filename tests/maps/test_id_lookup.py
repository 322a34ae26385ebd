"""``RoadNetwork.index_of`` through ``IdLookup``: counted ids by arithmetic, any others by
one stable sort; an id repeated by turn copies names its first node (the original); an id
not in the map is NodeNotFoundError naming it. Checked against a dict built as before."""

from __future__ import annotations

import numpy as np
import pytest

from maps.errors import NodeNotFoundError
from maps.model.network import IdLookup


def _dict_of(ids):  # what index_of did before: first index of each id
    out = {}
    for i, v in enumerate(ids.tolist()):
        out.setdefault(int(v), i)
    return out


@pytest.mark.parametrize("kind", ["counted", "counted from 7", "shuffled", "negative",
                                  "counted, copies after", "shuffled, copies after",
                                  "one node", "gaps"])
def test_every_id_found_as_a_dict_would(kind):
    rng = np.random.default_rng(3)
    n = 500
    ids = {"counted": np.arange(1, n + 1), "counted from 7": np.arange(7, n + 7),
           "shuffled": rng.permutation(n) * 3 + 11, "negative": -np.arange(1, n + 1),
           "one node": np.array([42]), "gaps": np.r_[np.arange(1, 200), np.arange(300, 601)],
           }.get(kind)
    if ids is None:
        base = np.arange(1, n + 1) if kind.startswith("counted") else rng.permutation(n) + 5
        ids = np.r_[base, base[rng.choice(n, 40, replace=False)]]  # turn copies' ids
    ids = ids.astype(np.int64)
    look = IdLookup(ids)
    want = _dict_of(ids)
    for v, i in want.items():
        assert look.find(v) == i
    for missing in (int(ids.max()) + 1, int(ids.min()) - 1, 10**12):
        assert missing in want or look.find(missing) == -1


def test_index_of_names_a_missing_id(tmp_path):
    from maps.generate import generate

    net = generate("grid", 100, seed=1)
    assert net.index_of(int(net.node_ids[17])) == 17
    with pytest.raises(NodeNotFoundError, match="node id 99999 is not in the map"):
        net.index_of(99999)
