"""Open any supported map file by its extension, through the cache when possible."""

from __future__ import annotations

import os
from collections.abc import Callable

from .errors import MapFormatError, ProfileError, UnknownFormatError
from .network import RoadNetwork

# Progress callback: (fraction 0..1, message). Cancel check: returns True to stop.
Progress = Callable[[float, str], None]
Cancel = Callable[[], bool]

PROFILES = ("length", "walk", "drive", "multimodal")
# Formats whose arcs carry their own weights: only the "file" profile applies.
OSM_EXT = (".osm.pbf", ".pbf", ".osm", ".osm.bz2", ".osm.gz")
DIMACS_EXT = (".gr", ".gr.gz")
PACE_EXT = (".gr.xz",)
GRAPHML_EXT = (".graphml", ".graphml.gz")
GEOJSON_EXT = (".geojson", ".json")
GPKG_EXT = (".gpkg",)
CACHE_EXT = (".spn",)


def detect_format(path: str) -> str:
    low = path.lower()
    for fmt, exts in (
        ("osm", OSM_EXT),
        ("pace", PACE_EXT),
        ("dimacs", DIMACS_EXT),
        ("graphml", GRAPHML_EXT),
        ("geojson", GEOJSON_EXT),
        ("gpkg", GPKG_EXT),
        ("cache", CACHE_EXT),
    ):
        if low.endswith(exts):
            return fmt
    raise UnknownFormatError(
        "unknown map format; Signpost reads .osm.pbf, .osm, .osm.bz2, .gr (+.co), .gr.gz, "
        ".gr.xz (PACE), .graphml, .geojson, .gpkg and its own .spn cache",
        path=path,
    )


def load_map(
    path: str | os.PathLike,
    *,
    profile: str | None = None,
    contract: bool = False,
    use_cache: bool = True,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
    seed: int = 1,
) -> RoadNetwork:
    """Load ``path`` as a :class:`RoadNetwork` with integer weights of ``profile``.

    ``profile`` is one of PROFILES for geographic formats (default "length") and must be
    None or "file" for DIMACS/PACE graphs, whose weights come from the file (PACE files
    carry none: uniform random 1..1000 from ``seed``, as the benchmarks state).
    ``contract`` merges degree-2 chains (geometry kept for drawing). The result is cached
    by file content + options (see ``maps.cache``) unless ``use_cache`` is False.
    """
    path = os.fspath(path)
    fmt = detect_format(path)
    if not os.path.exists(path):
        raise MapFormatError("no such file", path=path)
    if fmt in ("dimacs", "pace", "cache"):
        if profile not in (None, "file"):
            raise ProfileError(
                f"profile {profile!r} does not apply to a {fmt} graph, whose weights come from the file",
                path=path,
            )
        profile = "file"
    else:
        profile = profile or "length"
        if profile not in PROFILES:
            raise ProfileError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")

    if fmt == "cache":
        from .cache import read_cache

        return read_cache(path)

    def build() -> RoadNetwork:
        if fmt == "osm":
            from .osm import load_osm

            return load_osm(
                path, profile=profile, contract=contract, progress=progress, cancel=cancel
            )
        if fmt in ("dimacs", "pace"):
            # The p line decides, not the extension: `xz -d NE.gr.xz` gives a PACE NE.gr,
            # and a gzipped PACE file is a .gr.gz.
            kind = _problem_line(path)
            if kind == b"tw" or (kind is None and fmt == "pace"):
                from .dimacs import load_pace

                return load_pace(path, seed=seed, progress=progress, cancel=cancel)
            from .dimacs import load_dimacs

            return load_dimacs(path, progress=progress, cancel=cancel)
        if fmt == "graphml":
            from .graphml import load_graphml

            return load_graphml(path, profile=profile, contract=contract, progress=progress)
        if fmt == "geojson":
            from .vector import load_geojson

            return load_geojson(path, profile=profile, contract=contract, progress=progress)
        from .vector import load_gpkg

        return load_gpkg(path, profile=profile, contract=contract, progress=progress)

    if not use_cache:
        return build()
    from .cache import cached

    opts = {
        "profile": profile,
        "contract": contract,
        "seed": seed,
        "fmt": fmt,
    }  # the cache key also covers the file's content and the loader code (maps.cache)
    return cached(path, opts, build)


def _problem_line(path: str, limit: int = 1 << 16) -> bytes | None:
    """The problem type of a DIMACS/PACE file's ``p`` line (b"sp", b"tw", ...) from its
    first ``limit`` decompressed bytes; None when there is none or the file is unreadable
    (the loader then reports what is wrong)."""
    import bz2
    import gzip
    import lzma

    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
        opener = (
            gzip.open
            if magic[:2] == b"\x1f\x8b"
            else lzma.open
            if magic == b"\xfd7zXZ\x00"
            else bz2.open
            if magic[:3] == b"BZh"
            else open
        )
        with opener(path, "rb") as fh:
            head = fh.read(limit)
    except (OSError, EOFError, lzma.LZMAError, ValueError):
        return None
    if head[:3] == b"\xef\xbb\xbf":  # UTF-8 byte-order mark
        head = head[3:]
    for line in head.splitlines():
        tok = line.split()
        if tok and tok[0] == b"p":
            return tok[1] if len(tok) > 1 else None
        if tok and not tok[0].startswith(b"c"):
            return None  # arcs before any p line: the loader names the line
    return None
