"""A first answer before the first progressive round ends (issue 43: the window's sites
on screen in seconds on a big map): the first ``preview`` samples' sites come as a partial
result marked ``preview``; the run's rounds, samples, sites and bounds are those of the
run without it, with and without the route index."""

from __future__ import annotations

import numpy as np
import pytest

from gpu_core.betweenness import billboards
from gpu_core.hierarchy import build_hierarchy
from tests.core import families as fam
from tests.core.billboard_events import partials_and_result

KW = dict(mode="weighted", backend="cpu", method="sampled", epsilon=0.03, delta=0.1,
          sampling="progressive", seed=4)


def _run(g, k, **kw):
    return partials_and_result(billboards(g, k, **KW, **kw))


@pytest.mark.parametrize("indexed", [False, True])
def test_a_preview_comes_first_and_changes_nothing_else(indexed):
    g = fam.road_grid(30, 30, seed=11)
    extra = {"hierarchy": build_hierarchy(g, method="cch")} if indexed else {}
    plain_parts, plain = _run(g, 4, **extra)
    parts, res = _run(g, 4, preview=64, **extra)
    assert plain.stopped_by == "bound" and len(plain_parts) >= 1
    first = parts[0]
    assert first.stopped_by == "preview" and first.samples == 64
    assert first.sites.shape == (4,) and len(set(first.sites.tolist())) == 4
    assert first.epsilon_at_stop > plain.epsilon_at_stop  # 64 samples: a loose bound
    assert "preview: the first 64 samples" in first.notes
    # after the preview, the same rounds and the same answer as without it
    assert [(p.samples, p.sites.tolist(), p.epsilon_at_stop) for p in parts[1:]] == \
        [(p.samples, p.sites.tolist(), p.epsilon_at_stop) for p in plain_parts]
    assert res.sites.tolist() == plain.sites.tolist() and res.samples == plain.samples
    assert np.array_equal(res.group_betweenness, plain.group_betweenness)
    assert res.epsilon_at_stop == plain.epsilon_at_stop and res.stopped_by == "bound"


def test_no_preview_at_or_past_the_first_round():
    g = fam.road_grid(12, 12, seed=2)
    parts, _ = _run(g, 2, preview=10_000)
    assert all(p.stopped_by != "preview" for p in parts)


def test_the_job_says_first_answer():
    from app.jobs import billboards as job
    from maps.generate import generate

    net = generate("grid", n=900, seed=5)
    texts, partials = [], []
    opts = job.BillboardsOptions(3, mode="weighted", method="sampled", backend="cpu",
                                 epsilon=0.03, seed=4, preview=64, index="off")
    job.run(net, opts, progress=lambda f, t: texts.append(t), on_partial=partials.append)
    assert partials[0].stopped_by == "preview" and partials[0].samples == 64
    assert any(t.startswith("first answer from 64 samples: error ") for t in texts)
