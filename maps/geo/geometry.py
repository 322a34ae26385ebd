"""Line geometries of vector layers, through shapely: WKB blobs → vertex arrays, and the
one rule for picking a layer.

* :func:`wkb_lines` decodes all of a layer's WKB at once (``shapely.from_wkb``) and keeps
  each feature's LineStrings, MultiLineString parts and the lines inside (nested)
  GeometryCollections, in order, 2D (Z and M dropped); a feature with none is not a line
  (None). A blob shapely cannot read fails naming its feature.
* :func:`pick_layer`: ``--layer NAME``, else the one line layer; several line layers or a
  named layer without lines fail with one line that lists or names them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..errors import EmptyMapError, LayerChoiceError, MapFormatError

_LINE_TYPES = (1, 2)  # shapely type ids: LineString, LinearRing
_COLLECTIONS = (4, 5, 6, 7)  # Multi*, GeometryCollection


def wkb_lines(
    blobs: Sequence[bytes | None], *, path: str, where: Callable[[int], str]
) -> list[list[np.ndarray] | None]:
    """Per blob, its lines ((k, 2) float64 arrays), or None for an empty blob or a
    geometry without lines. ``where(i)`` names feature i in the error message."""
    import shapely

    arr = np.empty(len(blobs), dtype=object)
    arr[:] = list(blobs)
    geoms = shapely.from_wkb(arr, on_invalid="ignore")
    given = np.fromiter((b is not None for b in arr), dtype=bool, count=arr.size)
    bad = np.flatnonzero(shapely.is_missing(geoms) & given)
    if bad.size:
        i = int(bad[0])
        try:
            shapely.from_wkb(arr[i], on_invalid="raise")
            why = "unreadable WKB"
        except Exception as exc:  # noqa: BLE001 (shapely's GEOSException and friends)
            why = str(exc).splitlines()[0][:80] or "unreadable WKB"
        raise MapFormatError(f"{where(i)}: bad geometry ({why})", path=path)
    return geometry_lines(geoms)


def geometry_lines(geoms: np.ndarray) -> list[list[np.ndarray] | None]:
    """Per shapely geometry (or None), its lines as in :func:`wkb_lines`."""
    import shapely

    n = geoms.shape[0]
    parts, owner = geoms, np.arange(n)
    lines: list[tuple[np.ndarray, np.ndarray]] = []  # (line geometries, their owners)
    for _ in range(16):  # nesting depth of collections
        types = shapely.get_type_id(parts)
        is_line = np.isin(types, _LINE_TYPES)
        lines.append((parts[is_line], owner[is_line]))
        nested = np.isin(types, _COLLECTIONS)
        if not nested.any():
            break
        parts, idx = shapely.get_parts(parts[nested], return_index=True)
        owner = owner[nested][idx]
    geom = np.concatenate([g for g, _ in lines])
    own = np.concatenate([o for _, o in lines])
    # Keep each feature's parts in document order: stable by owner (depth order inside).
    order = np.argsort(own, kind="stable")
    geom, own = geom[order], own[order]
    coords, cidx = shapely.get_coordinates(geom, return_index=True)
    counts = np.bincount(cidx, minlength=geom.shape[0])
    pieces = np.split(coords, np.cumsum(counts)[:-1]) if geom.shape[0] else []
    out: list[list[np.ndarray] | None] = [None] * n
    for o, c in zip(own.tolist(), pieces, strict=True):
        if c.shape[0] == 0:
            continue  # an empty LineString
        if out[o] is None:
            out[o] = []
        out[o].append(c)
    return out


def pick_layer(
    layers: Sequence[tuple[str, bool, str]], wanted: str | None, path: str
) -> str:
    """The layer to read of ``layers`` = [(name, has lines, geometry type)]."""
    names = [name for name, _, _ in layers]
    if wanted is not None:
        for name, has_lines, gtype in layers:
            if name == wanted:
                if not has_lines:
                    raise MapFormatError(
                        f"layer {name!r} has no lines ({gtype}); a network needs a line layer",
                        path=path,
                    )
                return name
        raise MapFormatError(
            f"no layer named {wanted!r}; the file has {_listed(names)}", path=path
        )
    line = [name for name, has_lines, _ in layers if has_lines]
    if len(line) == 1:
        return line[0]
    if not line:
        shown = ", ".join(f"{n!r} ({t})" for n, _, t in layers)
        raise EmptyMapError(
            f"no line layer (layers: {shown})" if layers else "the file has no layers", path=path
        )
    raise LayerChoiceError(
        f"{len(line)} line layers: {', '.join(repr(n) for n in line)}; choose one with --layer",
        path=path,
        layers=line,
    )


def _listed(names: Sequence[str]) -> str:
    return "layers " + ", ".join(repr(n) for n in names) if names else "no layers"
