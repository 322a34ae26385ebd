"""Counts and units in the window's words (issue 42): "1 edit", "2 edits"; a change of
cost "longer" / "shorter" on a length map, "slower" / "faster" on a time map, "more" /
"less" in the file's own unit; a route's cost and length said once each. No Qt here."""

from __future__ import annotations

from maps.model.weights import unit_scale

_IRREGULAR = {"superstep": "supersteps", "search": "searches", "iteration": "iterations",
              "component": "components", "edit": "edits"}


def plural(n: int | float, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, in the plural unless ``n`` is 1 (thousands separated)."""
    one = n == 1
    if not one:
        word = many or _IRREGULAR.get(word) or (word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s"))
    return f"{n:,}" + f" {word}"


def dimension(unit: str) -> str | None:
    """"length", "time" or None (the file's own unit) of a cost unit."""
    sc = unit_scale(unit)
    return sc[0] if sc is not None else None


def change_words(unit: str) -> tuple[str, str]:
    """(a cost that grew, one that shrank) in words fit for ``unit``."""
    dim = dimension(unit)
    if dim == "length":
        return "longer", "shorter"
    if dim == "time":
        return "slower", "faster"
    return "more", "less"


def route_words(cost_text: str, unit: str, length_m: float | None) -> str:
    """A route's cost and length for the status bar: the length only where the cost is not
    already one ("1.3 km", "8.3 min, 1.3 km", "cost 7,274,208 (the file's unit), 164.7 km")."""
    dim = dimension(unit)
    if dim == "length" or length_m is None:
        return cost_text if dim is not None else f"cost {cost_text} (the file's unit)"
    length = f"{length_m / 1000:,.1f} km" if length_m >= 1000 else f"{length_m:,.0f} m"
    if dim is None:
        return f"cost {cost_text} (the file's unit), {length} long"
    return f"{cost_text}, {length}"


def duration_words(seconds: float) -> str:
    """"45 s", "12 min", "1 h 26 min" (an estimate or ETA: no false precision)."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    h, m = divmod(s // 60, 60)
    return f"{h} h {m} min" if m else f"{h} h"


def eta_words(frac: float, elapsed_s: float) -> str:
    """"about 12 min left" from the share done so far and the time it took ("" too early)."""
    if not 0.01 <= frac < 1.0 or elapsed_s < 3.0:
        return ""
    return f"about {duration_words(elapsed_s * (1.0 - frac) / frac)} left"
