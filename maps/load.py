"""Open any supported map file, through the cache when possible: the file's format
(``maps.formats.registry.FORMATS``) names its reader, ``load_map`` calls it with the options
its signature names.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Callable
from typing import Any

from .cache import cached
from .errors import MapFormatError, ProfileError
from .formats.registry import by_kind, format_spec
from .model.network import RoadNetwork

# Progress callback: (fraction 0..1, message). Cancel check: returns True to stop.
Progress = Callable[[float, str], None]
Cancel = Callable[[], bool]

PROFILES = ("length", "walk", "drive", "multimodal")

log = logging.getLogger(__name__)


def load_map(
    path: str | os.PathLike,
    *,
    profile: str | None = None,
    contract: bool = False,
    use_cache: bool = True,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    seed: int = 1,
    layer: str | None = None,
    crs: str | None = None,
    weight: str | None = None,
    weight_unit: str | None = None,
    split_crossings: bool = False,
    sql: str | None = None,
) -> RoadNetwork:
    """Load ``path`` as a :class:`RoadNetwork` with integer weights of ``profile``.

    ``layer`` names the line layer of a multi-layer file (else its only line layer),
    ``crs`` overrides the file's coordinate system (``maps.geo.crs``), ``weight`` /
    ``weight_unit`` make an edge attribute the cost (``maps.model.weights``; the profile then
    only picks roads and directions, and without one every line is used in the
    directions of its ``oneway``), ``split_crossings`` nodes lines where they cross.
    An option the format's reader does not take fails naming it. ``path`` may also be a
    ``postgresql://...?table=NAME`` URI of a pgRouting edge table, or one without
    ``table`` plus ``sql``, a query returning its columns (``maps.postgis.read``).

    ``profile`` is one of PROFILES for geographic formats (default "length") and must be
    None or "file" for DIMACS/PACE graphs, whose weights come from the file (PACE files
    carry none: uniform random 1..1000 from ``seed``, as the benchmarks state).
    ``contract`` merges degree-2 chains (geometry kept for drawing). The result is cached
    by file content + options (see ``maps.cache``) unless ``use_cache`` is False.
    """
    path = os.fspath(path)
    spec = format_spec(path)
    from .postgis.conn import redact

    shown = redact(path)  # a URI's password never reaches a message
    if not spec.uri and not os.path.exists(path):
        raise MapFormatError("no such file", path=path)
    if not (spec.uri or spec.folder):  # a FIFO, /dev/zero: one line, no hang
        from .source import check_map_file

        check_map_file(path, bounded=spec.read_bounded
                       or (spec.kind == "osm" and not path.lower().endswith(".pbf")))
        check_companions(path)  # a .shx FIFO, a .prj on /dev/urandom: one line (issue 40)
    from .model.weights import weight_spec

    wspec = weight_spec(weight, weight_unit, by_profile=profile is not None)
    if wspec is not None and profile is None and not spec.own_weights:
        profile = "length"  # unused: every line, by its oneway (maps.model.weights)
    if spec.own_weights:
        if profile not in (None, "file"):
            raise ProfileError(
                f"profile {profile!r} does not apply to a {spec.kind} graph, whose weights come from the file",
                path=shown,
            )
        profile = "file"
    else:
        profile = profile or "length"
        if profile not in PROFILES:
            raise ProfileError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    options = {
        "profile": profile,
        "contract": contract,
        "seed": seed,
        "progress": progress,
        "cancel": cancel,
    }
    # Options only some readers take: given to one that does not, they fail.
    extra: dict[str, Any] = {"layer": layer, "crs": crs, "weight": wspec, "split_crossings": split_crossings,
             "sql": sql}
    given = {k: v for k, v in extra.items() if v not in (None, False)}
    options.update(given)

    if spec.uri:
        options["use_cache"] = use_cache
        log.info("opening %s (%s, profile %s)", shown, spec.kind, profile)
    else:
        log.info("opening %s (%s, %s bytes, profile %s%s)", path, spec.kind,
                 f"{os.path.getsize(path):,}", profile, ", contract" if contract else "")

    def build() -> RoadNetwork:
        reader_spec = by_kind(spec.function("sniff")(path, spec.kind)) if spec.sniff else spec
        read = reader_spec.function("reader")
        log.debug("reader %s", reader_spec.reader)
        takes = inspect.signature(read).parameters
        for name in given:
            if name not in takes:
                flag = "--" + name.replace("_", "-")
                raise MapFormatError(f"{flag} does not apply to {reader_spec.kind} maps",
                                     path=shown)
        net = _read_noting(read, path, {k: v for k, v in options.items() if k in takes})
        log.info("read %s: %s nodes, %s arcs, unit %s", reader_spec.kind,
                 f"{net.num_nodes:,}", f"{net.num_arcs:,}", net.unit)
        if use_cache and spec.cached and progress is not None:
            progress(1.0, "writing the cache")
        return net

    if not (use_cache and spec.cached):
        return build()
    key = {"profile": profile, "contract": contract, "seed": seed, "fmt": spec.kind}
    if given:  # only then: the keys of existing entries stay as they were
        key.update({k: (v.column, v.dimension, v.factor, v.by_profile) if k == "weight" else v
                    for k, v in given.items()})  # fmt: skip
    return cached(path, key, build)  # the key also covers the file's content and loader code


def _read_noting(read: Any, path: str, options: dict[str, Any]) -> RoadNetwork:
    """``read(path, **options)`` with its weight-rounding notes kept in
    ``meta["load_warnings"]`` (cached with the map, so a cache hit says them too)."""
    from .model.weights import collect_notes

    with collect_notes() as notes:  # per thread: the window loads in workers
        net = read(path, **options)
    if notes:
        net.meta["load_warnings"] = [*net.meta.get("load_warnings", ()), *notes]
    return net


# Companions that only describe (a CRS, an encoding): a few hundred bytes in practice.
SMALL_COMPANIONS = (".prj", ".cpg")
SMALL_COMPANION_BYTES = 1 << 20


def check_companions(path: str) -> None:
    """Every companion of the map ``path`` (a Shapefile's .shx/.dbf/.prj/.cpg, a DIMACS
    .co) before anything reads it: a regular file (it is read twice, for the cache key and
    by its reader; a FIFO would hang both, a device never end), within
    ``maps.source.max_input_bytes`` (``.prj``/``.cpg``: 1 MiB). MapFormatError naming it otherwise."""
    from osutil.regular import open_regular

    from .formats.registry import companion_files
    from .source import max_input_bytes

    for c in companion_files(path):
        small = c.lower().endswith(SMALL_COMPANIONS)
        try:
            open_regular(c, SMALL_COMPANION_BYTES if small else max_input_bytes()).close()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise MapFormatError(f"companion of {os.path.basename(path)}: "
                                 f"{exc.strerror or exc}", path=c) from None
