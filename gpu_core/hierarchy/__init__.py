"""Route indexes: a one-time index of a graph that makes one-to-all searches a short
upward search plus one linear sweep (PHAST), on the CPU or many sources at once on the GPU
(GPHAST). ``api`` builds, saves and loads it; ``cch`` (with ``order``, ``chordal``,
``metric``/``metric_cuda``) builds the customizable one (nested dissection,
chordal topology, customization: re-customized after closures); ``contract`` the
witness-search one; ``cpu`` runs the searches with numba; ``cuda`` (with ``phast.cu``) the
GPU sweep."""

from .api import (
    METHODS,
    Hierarchy,
    HierarchyTooDenseError,
    build_hierarchy,
    graph_key,
    recustomize,
    road_shaped,
)
from .cch import Topology, build_topology, customize, fits, slots_for, topology_key
from .keyed import key_graph_fingerprint, key_hierarchy, plain_of_key
from .order import MetisUnavailableError

__all__ = [
    "METHODS", "Hierarchy", "HierarchyTooDenseError", "MetisUnavailableError", "Topology",
    "build_hierarchy", "build_topology", "customize", "fits", "graph_key", "key_graph_fingerprint",
    "key_hierarchy", "plain_of_key", "recustomize",
    "road_shaped", "slots_for", "topology_key",
]
