"""Issue 11's goals (seed 003) read off the rows of ``signpost bench vertex-programs``: one
line per goal, measured value and met / not met, for ``$OUT/summary.txt`` and the docs.

The goals are set on DIMACS NE (the road graph named ``NE``); without it they are read on
the first road graph and the line says which. A row stopped by ``--time-cap`` counts as
not met (its time is a lower bound).
"""

from __future__ import annotations

GOALS_MS = {"mst_direct": 3.0, "mst_framework": 15.0, "pr_framework": 15.0,
            "pr_direct": 4.0, "edits": 1.0}
MIN_SPEEDUP_SCIPY = 100.0  # the direct MST kernel against scipy, same run


def _ms(rows: list[dict], prog: str, impl: str) -> tuple[float, bool] | None:
    """(ms, over the cap) of one row, or None when it was not run."""
    for r in rows:
        if r["program"] == prog and r["implementation"] == impl:
            return float(r["median_ms"]), r["check"] == "over cap"
    return None


def _verdict(got: tuple[float, bool] | None, goal: float) -> str:
    if got is None:
        return "not measured"
    ms, over = got
    if over:
        return f"> {ms:,.1f} ms (over the time cap), goal <= {goal:g} ms: not met"
    return f"{ms:,.3f} ms, goal <= {goal:g} ms: {'met' if ms <= goal else 'not met'}"


def goal_lines(table: list[dict]) -> list[str]:
    """``goal <name> on <graph>: <measured>, goal <...>: met|not met`` lines (empty
    when no road graph was run)."""
    roads = [r for r in table if r["kind"] == "road"]
    if not roads:
        return []
    names = list(dict.fromkeys(r["graph"] for r in roads))
    graph = "NE" if "NE" in names else names[0]
    rows = [r for r in roads if r["graph"] == graph]
    on = f"on {graph}" + ("" if graph == "NE" else " (the goals are set on NE)")
    out = []
    direct = _ms(rows, "mst", "direct Borůvka kernels (GPU)")
    scipy = _ms(rows, "mst", "scipy minimum_spanning_tree")
    line = _verdict(direct, GOALS_MS["mst_direct"])
    if direct and scipy and not direct[1] and not scipy[1] and direct[0] > 0:
        ratio = scipy[0] / direct[0]
        ok = ratio >= MIN_SPEEDUP_SCIPY
        line += f"; {ratio:,.0f}x scipy (goal >= {MIN_SPEEDUP_SCIPY:g}x: {'met' if ok else 'not met'})"
    out.append(f"goal mst-direct {on}: {line}")
    fw = _ms(rows, "mst", "framework (list)")
    extra = [f"{impl} {v[0]:,.1f} ms" + (" (over cap)" if v[1] else "")
             for impl in ("framework (collision)", "framework (copy)")
             if (v := _ms(rows, "mst", impl)) is not None]
    out.append(f"goal mst-framework {on}: lists {_verdict(fw, GOALS_MS['mst_framework'])}"
               + (f" [{'; '.join(extra)}]" if extra else ""))
    comb = _ms(rows, "pagerank", "framework (combiner)")
    lists = _ms(rows, "pagerank", "framework (list)")
    out.append(f"goal pagerank-framework {on}: combiner "
               f"{_verdict(comb, GOALS_MS['pr_framework'])}"
               + (f" [paper's lists {lists[0]:,.1f} ms]" if lists else ""))
    out.append(f"goal pagerank-direct {on}: "
               f"{_verdict(_ms(rows, 'pagerank', 'direct CSR'), GOALS_MS['pr_direct'])}")
    edits = next((r["edit_batch_ms"] for r in rows if r.get("edit_batch_ms")), "")
    out.append(f"goal edit-batch {on}: " + (_verdict((float(edits), False), GOALS_MS["edits"])
                                            if edits else "not measured"))
    out += _direction(rows, on)
    return out


def _direction(rows: list[dict], on: str) -> list[str]:
    """Seed 003's direction: lists beat static buffers for Bellman-Ford, Borůvka with
    lists beats rebuilding the static buffers every round."""
    out = []
    bf = _ms(rows, "bf", "framework (list)")
    md = _ms(rows, "bf", "Medusa-style (static buffers)")
    rb = _ms(rows, "bf", "Medusa-style layout rebuild")
    if bf and md:
        won = not bf[1] and bf[0] < md[0] + (rb[0] if rb else 0.0)
        out.append(f"direction bellman-ford {on}: lists {bf[0]:,.1f} ms vs static buffers "
                   f"{md[0]:,.1f} ms" + (f" + {rb[0]:,.1f} ms per layout rebuild" if rb else "")
                   + f": {'lists win' if won else 'static buffers win'}"
                   + ("" if bf[0] < md[0] else " (only with a rebuild counted)" if won else ""))
    mst = _ms(rows, "mst", "framework (list)")
    rebuild = _ms(rows, "mst", "Medusa-style rebuilds (every round)")
    if mst and rebuild:
        won = not mst[1] and mst[0] < rebuild[0]
        out.append(f"direction boruvka {on}: lists {mst[0]:,.1f} ms vs rebuild every round "
                   f"{rebuild[0]:,.1f} ms: {'lists win' if won else 'rebuilds win'}")
    return out
