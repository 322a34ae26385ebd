"""Contraction hierarchies: a one-time index of a graph that makes one-to-all searches a
short upward search plus one linear sweep (PHAST), on the CPU or many sources at once on
the GPU (GPHAST). ``api`` builds, saves and loads it; ``contract`` orders and contracts;
``cpu`` runs the searches with numba; ``cuda`` (with ``phast.cu``) the GPU sweep."""

from .api import Hierarchy, HierarchyTooDenseError, build_hierarchy, graph_key, road_shaped
from .keyed import key_graph_fingerprint, key_hierarchy

__all__ = [
    "Hierarchy", "HierarchyTooDenseError", "build_hierarchy", "graph_key",
    "key_graph_fingerprint", "key_hierarchy", "road_shaped",
]
