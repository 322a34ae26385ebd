"""``--weight COLUMN``: an edge attribute of the file as the cost, kept as exact integers.

* **Units.** OSMnx's conventions: ``travel_time`` is seconds and ``length`` metres;
  ``--weight-unit s|min|h|m|km`` names another column's unit (values are converted to
  seconds or metres); a column with neither is a plain number (unit "unit").
* **Integers.** The kernels add int32 weights exactly. A column is scaled by 10**k, the
  smallest k (0..12) at which every value is an integer to 1e-6 of itself (float noise)
  and the largest value still fits int32 (integer columns: k = 0); when that k still
  rounds a value (1/3 is whole to 1e-6 at k = 6), the first finer k that keeps every value
  whole, else the finest one int32 allows, so that path sums keep their order wherever
  int32 can. A column rounded at all gets a :class:`RoundedWeightsWarning` saying so.
  A full-precision float column that no k keeps so (osm2pgrouting's ``cost`` in degrees)
  is taken at the largest k that fits if every value > 0 then stays within 0.1% of itself
  (:data:`FLOAT_REL_TOL`). Otherwise (``0.4`` beside ``3e8``: 0.4 needs k = 1, 3e8 x 10
  overflows, and at k = 0 0.4 would become 0) the column is refused naming it and its
  range (:func:`exact_scale`, also the rule of ``maps.from_edges``): never rounded to fit. The unit says the scale: ``s``,
  ``ds``, ``cs``, ``ms``, ``us`` (``m``, ``dm``, ``cm``, ``mm``, ``um``), else ``1e-K s``.
* **Split lines.** A line feature cut into several arcs at junctions shares its value
  out by length, rounding the running sum so that its arcs add up to it exactly.
* **Directions.** Without ``--profile``, every line is used, in the directions of its
  ``oneway`` attribute (yes/true/1, -1/reverse, else both); with a profile, that
  profile's rules (drive honours one-ways, walk and length do not).
* **Bad values.** Missing, negative, non-finite or non-numeric: MapFormatError naming
  the file, layer and feature.
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
import warnings
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import MapFormatError

INT32_MAX = 2**31 - 1
REL_TOL = 1e-6
# A full-precision float column (no decimal scale keeps it to REL_TOL: osm2pgrouting's
# degrees, seconds, metres) is taken at the finest scale that fits while every value > 0
# stays within this of itself (osm2pgrouting's Helsinki: 0.02% at most); else refused.
FLOAT_REL_TOL = 1e-3
MAX_DIGITS = 12
_NOISE = 1e-9  # float64 noise of a decimal value times 10**k (0.1 x 10 = 1.0000000000000002)
# --weight-unit: (dimension, factor to seconds or metres)
COLUMN_UNITS: dict[str, tuple[str, float]] = {
    "s": ("time", 1.0), "min": ("time", 60.0), "h": ("time", 3600.0),
    "m": ("length", 1.0), "km": ("length", 1000.0),
}  # fmt: skip
# OSMnx's columns whose unit is known without --weight-unit.
KNOWN_COLUMNS = {"travel_time": "s", "length": "m"}
_PREFIX = {0: "", 1: "d", 2: "c", 3: "m", 6: "u", 9: "n"}
_BASE = {"time": "s", "length": "m", None: "unit"}
_UNIT = re.compile(r"^(?:(d|c|m|u|n)?(s|m)|1e-(\d+) (s|m|unit)|unit)$")


@dataclass(frozen=True)
class WeightSpec:
    """The column to read, its dimension ("time", "length" or None) and the factor that
    takes its values to seconds or metres."""

    column: str
    dimension: str | None
    factor: float
    by_profile: bool = False  # a --profile was given: its rules pick lines and directions

    @property
    def profile_name(self) -> str:
        """What a network weighted by this column calls its profile."""
        return f"weight:{self.column}"

    def value(
        self, props: Mapping[str, Any] | None, path: str, where: str, line: int | None = None
    ) -> float:
        """The cost of one feature (in seconds, metres or plain units); ``where`` names
        it (layer, index, id) in the error of a missing or bad value."""
        try:
            return self._value(props, where, path)
        except MapFormatError as exc:
            raise MapFormatError(exc.detail, path=path, line=line) from None

    def _value(self, props: Mapping[str, Any] | None, where: str, path: str) -> float:
        v: Any = None if props is None else props.get(self.column)
        if isinstance(v, (list, tuple, dict)):  # a JSON list [2] is no cost (GraphML's
            # OSMnx lists, written as text, are cut to their first value by the reader)
            shown = str(v)[:40]
            raise MapFormatError(
                f"{where}: {self.column} {shown} is a {type(v).__name__}, not a number",
                path=path)
        if v is None or (isinstance(v, str) and not v.strip()):
            raise MapFormatError(f"{where}: no {self.column!r} value", path=path)
        if isinstance(v, bool):
            raise MapFormatError(f"{where}: {self.column} {v!r} is not a number", path=path)
        try:
            x = float(v.strip() if isinstance(v, str) else v)
        except (TypeError, ValueError, OverflowError):
            shown = str(v)[:40]
            raise MapFormatError(
                f"{where}: {self.column} {shown!r} is not a number", path=path
            ) from None
        if not math.isfinite(x) or x < 0:
            raise MapFormatError(
                f"{where}: {self.column} {x!r} is not a finite number >= 0", path=path
            )
        return x * self.factor


def weight_spec(
    column: str | None, unit: str | None = None, *, by_profile: bool = False
) -> WeightSpec | None:
    """The spec of ``--weight column [--weight-unit unit]``; None without a column."""
    if column is None:
        if unit is not None:
            raise MapFormatError("--weight-unit needs --weight COLUMN")
        return None
    if not column:
        raise MapFormatError("--weight needs a column name")
    unit = unit if unit is not None else KNOWN_COLUMNS.get(column)
    if unit is None:
        return WeightSpec(column, None, 1.0, by_profile)
    if unit not in COLUMN_UNITS:
        raise MapFormatError(
            f"unknown --weight-unit {unit!r}; choose one of {', '.join(COLUMN_UNITS)}"
        )
    dim, factor = COLUMN_UNITS[unit]
    return WeightSpec(column, dim, factor, by_profile)


def unit_name(dimension: str | None, k: int) -> str:
    """The weight unit 10**-k of seconds, metres or plain units."""
    base = _BASE[dimension]
    if k == 0:
        return base
    if dimension is not None and k in _PREFIX:
        return _PREFIX[k] + base
    return f"1e-{k} {base}"


@functools.cache
def unit_scale(unit: str) -> tuple[str | None, int] | None:
    """(dimension, k) of a weight unit (``ds`` → ("time", 1)); None for a unit that is
    not a power-of-ten scale of seconds, metres or plain units. Read once per unit: a
    map's few units are formatted over and over (every legend label of every drawn
    field, issue 38)."""
    m = _UNIT.match(unit)
    if not m:
        return None
    if m.group(3) is not None:
        base, k = m.group(4), int(m.group(3))
    elif m.group(2) is not None:
        base, k = m.group(2), {v: k for k, v in _PREFIX.items()}[m.group(1) or ""]
    else:
        base, k = "unit", 0
    return {"s": "time", "m": "length", "unit": None}[base], k


def seconds_of(unit: str, cost: int) -> float | None:
    """Seconds of a cost in ``unit`` (a time unit), else None."""
    sc = unit_scale(unit)
    if sc is None or sc[0] != "time":
        return None
    return cost / 10 ** sc[1] if sc[1] else float(cost)


def _kept(scaled: np.ndarray) -> bool:
    """Every value of ``scaled`` an integer to 1e-6 of itself (so float noise such as
    0.1 x 10 = 1.0000000000000002 passes, and no value > 0 becomes 0)."""
    return bool(np.all(np.abs(np.rint(scaled) - scaled) <= REL_TOL * scaled))


def _worst(values: np.ndarray, k: int) -> float:
    """The largest relative change of a value > 0 rounded at 10**k."""
    s = values[values > 0] * 10**k
    return float(np.max(np.abs(np.rint(s) - s) / s)) if s.size else 0.0


def exact_scale(values: np.ndarray, column: str, path: str | None = None) -> int:
    """The k of the module doc for ``values`` (float64, >= 0): the smallest power of ten
    that makes every value an integer cost within int32 (to 1e-6 of itself), else for a
    full-precision float column the finest one that fits if it keeps every value to
    :data:`FLOAT_REL_TOL`. MapFormatError naming ``column``, the values' range and why
    when neither does: the one rule of every weight column (``--weight``, pgRouting
    costs, ``maps.from_edges``); a value is never rounded further than that."""
    values = np.asarray(values, dtype=np.float64).ravel()
    if not values.size:
        return 0
    lo, top = float(values.min()), float(values.max())
    fits = -1
    for k in range(MAX_DIGITS + 1):
        if top * 10**k > INT32_MAX:
            break
        fits = k
        if _kept(values * 10**k):
            return _exact_or_finest(values, k, top)
    if fits >= 0 and _worst(values, fits) <= FLOAT_REL_TOL:
        return fits
    need = next((k for k in range(MAX_DIGITS + 1) if _kept(values * 10**k)), None)
    if top > INT32_MAX:
        why = f"{top:g} exceeds the largest cost {INT32_MAX}"
    elif need is None:  # only values far below 1e-6 get here
        s = values * 10**MAX_DIGITS
        odd = float(values[np.argmax(np.abs(np.rint(s) - s) > REL_TOL * s)])
        why = f"{odd!r} has more than {MAX_DIGITS} decimals"
    else:
        why = (f"its decimals need x 10**{need}, which makes {top:g} {top * 10**need:g}, "
               f"over the largest cost {INT32_MAX}; at x 10**{fits} a value would change "
               f"by {_worst(values, fits):.0%}")
    raise MapFormatError(
        f"weight column {column!r} (values {lo:g} to {top:g}): no power of ten up to "
        f"1e{MAX_DIGITS} makes every value an exact int32 cost: {why}; round or rescale "
        "the column", path=path)


def _exact(scaled: np.ndarray) -> bool:
    """Every value of ``scaled`` whole up to float noise (not only to :data:`REL_TOL`)."""
    return bool(np.all(np.abs(np.rint(scaled) - scaled) <= _NOISE * np.maximum(scaled, 1.0)))


def _finest(top: float) -> int:
    """The largest k (<= MAX_DIGITS) at which ``top`` x 10**k still fits int32."""
    k = 0
    while k < MAX_DIGITS and top * 10 ** (k + 1) <= INT32_MAX:
        k += 1
    return k


def _exact_or_finest(values: np.ndarray, k: int, top: float) -> int:
    """``k`` when it keeps every value whole, else the first finer scale that does, else
    the finest int32 allows: a value rounded at 1e-6 of itself (1/3 at x 10**6) can turn
    three arcs of 1/3 into a shorter path than one of 0.9999995, which x 10**9 keeps."""
    last = _finest(top)
    for j in range(k, last + 1):
        if _exact(values * 10**j):
            return j
    return max(k, last)


class RoundedWeightsWarning(UserWarning):
    """A weight column's values were rounded to whole units of the scale (one line)."""


_NOTES: ContextVar[list[str] | None] = ContextVar("signpost_weight_notes", default=None)


@contextlib.contextmanager
def collect_notes() -> Iterator[list[str]]:
    """Rounding notes of :func:`scale_values` gathered here (this thread or task only)
    instead of warned: the loader keeps them in ``meta["load_warnings"]``."""
    notes: list[str] = []
    token = _NOTES.set(notes)
    try:
        yield notes
    finally:
        _NOTES.reset(token)


def rounding_note(values: np.ndarray, k: int, column: str, unit: str,
                  path: str | None = None) -> str | None:
    """The warning for ``values`` scaled by 10**k when some are rounded (None: none is):
    how much, and that path sums that close may then compare in another order."""
    s = np.asarray(values, dtype=np.float64) * 10**k
    if _exact(s):
        return None
    err = np.abs(np.rint(s) - s)
    pos = s > 0
    rel = float(np.max(err[pos] / s[pos])) if pos.any() else 0.0
    where = f"{path}: " if path else ""
    n = int(np.count_nonzero(err > _NOISE * np.maximum(s, 1.0)))
    return (f"{where}weight column {column!r}: {n:,} value{'s' * (n != 1)} "
            f"{'are' if n != 1 else 'is'} rounded to whole {unit} (the finest unit int32 allows; each within "
            f"{rel:.2g} of itself), so two routes whose costs differ by less than their "
            "arcs' rounding may compare in the other order")


def scale_values(
    values: np.ndarray, dimension: str | None, path: str | None = None, column: str = "weight"
) -> tuple[np.ndarray, str]:
    """(int64 weights, unit) of per-arc costs: every value times 10**k (:func:`exact_scale`;
    MapFormatError naming ``column`` when no k keeps them exact)."""
    k = exact_scale(values, column, path)
    unit = unit_name(dimension, k)
    note = rounding_note(values, k, column, unit, path)
    sink = _NOTES.get()
    if note is not None and sink is not None:
        sink.append(note)
    elif note is not None:
        warnings.warn(note, RoundedWeightsWarning, stacklevel=2)
    return np.rint(np.asarray(values, dtype=np.float64) * 10**k).astype(np.int64), unit


def apportion(totals: np.ndarray, group: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Integer shares of each group's integer total over its pieces, by length.

    ``group`` (non-decreasing) names each piece's group, ``lengths`` its length; a group
    of zero length shares equally. The running sum is rounded, so each group's shares add
    up to its total exactly."""
    group = np.asarray(group, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.float64)
    if group.size == 0:
        return np.zeros(0, dtype=np.int64)
    start = np.r_[True, group[1:] != group[:-1]]
    first = np.flatnonzero(start)
    size = np.diff(np.r_[first, group.size])
    idx_in = np.arange(group.size) - np.repeat(first, size)
    tot_len = np.add.reduceat(lengths, first)
    cum = np.cumsum(lengths) - np.repeat(np.cumsum(lengths)[first] - lengths[first], size)
    glen = np.repeat(tot_len, size)
    frac = np.where(glen > 0, cum / np.where(glen > 0, glen, 1.0), (idx_in + 1) / np.repeat(size, size))
    frac[np.r_[first[1:] - 1, group.size - 1]] = 1.0  # each group ends at its total exactly
    total = np.asarray(totals, dtype=np.int64)[group]
    # the running sum above subtracts the groups before: a tiny group after long ones
    # (lengths 4e-9 after 16,384 m) gets a fraction off by ~1e-3, past 1 or going back;
    # clipped, and each group's rounded running total kept non-decreasing (a running max
    # within each group: every group lifted above the ones before it), so no share is
    # negative and each group still sums to its total
    upto = np.rint(total * np.clip(frac, 0.0, 1.0)).astype(np.int64)
    lift = np.repeat(np.cumsum(total[first] + 1) - (total[first] + 1), size)
    upto = np.maximum.accumulate(upto + lift) - lift
    before = np.where(start, 0, np.r_[0, upto[:-1]])
    return upto - before
