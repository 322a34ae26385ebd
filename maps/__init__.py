"""Map loading and building: every format in, one :class:`RoadNetwork` out.

Heavy optional imports (osmium, shapely) happen inside the functions that need them, so
``maps`` imports on a GPU machine that has neither (benchmarks read DIMACS there).
"""

from .errors import (
    EmptyMapError,
    MapError,
    MapFormatError,
    NodeNotFoundError,
    PointError,
    ProfileError,
    UnknownFormatError,
    UnreachableError,
)
from .formats.networkx_io import from_edges, from_networkx
from .model.network import (
    KIND_NAMES,
    KIND_RAIL,
    KIND_ROAD,
    KIND_TRANSFER,
    WEIGHT_UNITS,
    RoadNetwork,
)

__all__ = [
    "EmptyMapError",
    "KIND_NAMES",
    "KIND_RAIL",
    "KIND_ROAD",
    "KIND_TRANSFER",
    "MapError",
    "MapFormatError",
    "NodeNotFoundError",
    "PointError",
    "ProfileError",
    "RoadNetwork",
    "UnknownFormatError",
    "UnreachableError",
    "WEIGHT_UNITS",
    "from_edges",
    "from_networkx",
]
