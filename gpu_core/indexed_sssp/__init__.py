"""One-to-all searches through the route index (issue 26): ``sssp()``'s exact dist, pred
and hops from an upward search plus one PHAST sweep of a key-weighted hierarchy
(``gpu_core.hierarchy.key_hierarchy``). ``api`` checks the index and dispatches; ``cpu``
(numba) and ``cuda`` (with ``one_to_all.cu``) run the search."""

from .api import check_index, indexed_search, prepare_index

__all__ = ["check_index", "indexed_search", "prepare_index"]
