"""The "change" view of what-if editing (no Qt here): how much each node's travel time
grew or shrank against the unedited network, and which nodes the edits cut off.

Roads are drawn in the colour of their more-changed end: a diverging colour map
(``resources/colormaps.json`` "diverging": blue = faster, red = slower) in a few bands
each side of zero, grey where nothing changed, and two flat colours for nodes that became
unreachable or reachable. One class per drawn arc, so the canvas draws it as it draws
the distance field (one path per class, or one colour per arc on raster maps).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from resources import colormap_lut

CHANGE_COLORMAP = "diverging"
HALF_BANDS = 8  # bands each side of zero
UNCHANGED_RGB = (90, 96, 106)
LOST_RGB = (255, 0, 255)  # became unreachable
GAINED_RGB = (0, 230, 118)  # became reachable (a new link)


@dataclass
class Change:
    """Per node of the unedited map: ``delta`` = edited − base cost (0 where either is
    unreached), and the nodes that became unreachable / reachable."""

    delta: np.ndarray  # int64
    lost: np.ndarray  # bool
    gained: np.ndarray  # bool
    file_nodes: int = -1  # the file's nodes come first (turn copies after them); -1: all

    @property
    def span(self) -> int:
        """The largest |delta| (the colour scale's end), at least 1."""
        return max(int(np.abs(self.delta).max()) if self.delta.size else 0, 1)

    @property
    def none(self) -> bool:
        """True when the edits changed no node's cost and reachability."""
        return not (self.delta.any() or self.lost.any() or self.gained.any())

    @property
    def lost_nodes(self) -> np.ndarray:
        """The file's nodes cut off (a turn copy is not a node of its own)."""
        n = self.lost.shape[0] if self.file_nodes < 0 else self.file_nodes
        return np.nonzero(self.lost[:n])[0]


def change(base_dist: np.ndarray, base_reached: np.ndarray, dist: np.ndarray,
           reached: np.ndarray, *, base_copies=None, copies=None) -> Change:
    """Change of ``dist`` (edited; may be longer: added vertices) against ``base_dist``.
    On a turn-restricted map (issue 39) ``base_copies`` / ``copies`` give the original of
    each turn copy of the unedited / edited graph (``meta["turn_copies"]``; the copies are
    the last vertices): a node's cost is then the least over its copies, and each copy
    shows its node's change (so a turn ban shows the routes it lengthens, not the copy
    that lost an approach)."""
    if base_copies is not None or copies is not None:
        base_dist, base_reached = _folded(base_dist, base_reached, base_copies)
        dist, reached = _folded(dist, reached, copies)
    n = base_dist.shape[0]
    d, r = dist[:n], reached[:n]
    both = base_reached & r
    delta = np.zeros(n, dtype=np.int64)
    delta[both] = d[both].astype(np.int64) - base_dist[both].astype(np.int64)
    n0 = n - (0 if base_copies is None else len(base_copies))
    return Change(delta, base_reached & ~r, ~base_reached & r,
                  n0 if base_copies is not None or copies is not None else -1)


def change_of(net, sc, base, res) -> Change:
    """The change view's :class:`Change` of search ``res`` (on the edited graph of
    scenario ``sc``, or None) against ``base`` (on the map ``net`` as loaded), folded over
    turn copies where the map or the edits have them."""
    base_c = list((getattr(net, "meta", None) or {}).get("turn_copies") or ())
    extra = dict(getattr(sc, "turn_copies", None) or {})
    if not base_c and not extra:
        return change(base.dist, base.reached, res.dist, res.reached)
    # the edited graph's vertices (added links' and turn edits' interleaved): each folded
    # over its node's vertices, then compared as the unedited map's vertices
    rep = np.arange(res.dist.shape[0], dtype=np.int64)
    n0 = net.num_nodes - len(base_c)
    rep[n0:net.num_nodes] = base_c
    for k, o in extra.items():
        rep[k] = o
    big = np.iinfo(np.int64).max
    d = np.where(res.reached, res.dist.astype(np.int64), big)
    best = np.full(rep.shape[0], big, dtype=np.int64)
    np.minimum.at(best, rep, d)
    full = best[rep][: net.num_nodes]
    return change(base.dist, base.reached, np.where(full == big, 0, full), full != big,
                  base_copies=base_c, copies=[])


def _folded(dist: np.ndarray, reached: np.ndarray, copies) -> tuple[np.ndarray, np.ndarray]:
    """(dist, reached) with every vertex given its node's least cost over all its copies."""
    c = np.asarray([] if copies is None else copies, dtype=np.int64)
    if not c.size:
        return dist, reached
    n0 = dist.shape[0] - c.shape[0]
    big = np.iinfo(np.int64).max
    d = np.where(reached, dist.astype(np.int64), big)
    best = d[:n0].copy()
    np.minimum.at(best, c, d[n0:])
    full = best[np.r_[np.arange(n0), c]]
    return np.where(full == big, 0, full), full != big


def palette() -> np.ndarray:
    """RGB (uint8) of every class: 0..2H the diverging bands (H = no change, drawn grey),
    then lost, gained."""
    k = 2 * HALF_BANDS + 1
    lut = colormap_lut(CHANGE_COLORMAP, 256)
    rgb = lut[np.round(np.arange(k) * 255 / (k - 1)).astype(np.int64)].copy()
    rgb[HALF_BANDS] = UNCHANGED_RGB
    return np.vstack([rgb, [LOST_RGB, GAINED_RGB]]).astype(np.uint8)


LOST_CLASS = 2 * HALF_BANDS + 1
GAINED_CLASS = LOST_CLASS + 1


def arc_classes(ch: Change, tails: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """Class (index into :func:`palette`) of each drawn arc tails[i]–heads[i]."""
    dt, dh = ch.delta[tails], ch.delta[heads]
    d = np.where(np.abs(dh) > np.abs(dt), dh, dt)
    k = np.ceil(np.abs(d) * HALF_BANDS / ch.span).astype(np.int64)
    cls = (HALF_BANDS + np.sign(d) * np.minimum(k, HALF_BANDS)).astype(np.int64)
    cls[ch.gained[tails] | ch.gained[heads]] = GAINED_CLASS
    cls[ch.lost[tails] | ch.lost[heads]] = LOST_CLASS
    return cls


def change_text(ch: Change, unit: str) -> str:
    """A one-line summary of a change view."""
    from .map_canvas import format_cost  # (Qt: the module stays Qt-free until used)
    from .words import change_words, plural

    grew, shrank = int((ch.delta > 0).sum()), int((ch.delta < 0).sum())
    if ch.none:
        return ("nothing changed: no node's cost from A differs from the unedited map "
                "(the edited roads are on no shortest route from A)")
    more, less = change_words(unit)
    return (f"{plural(grew, 'node')} {more}, {shrank:,} {less} (up to {format_cost(ch.span, unit)}); "
            f"{int(ch.lost.sum()):,} became unreachable")
