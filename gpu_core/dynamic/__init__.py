"""The mutable graph (seed 003, issue 11 item 1; what-if editing builds on it).

:class:`MutableGraph` starts from any CSR (a ``RoadNetwork`` or ``CSRGraph``) and takes
:class:`EditBatch` es -- disable / enable / set_weight / delete an arc, insert an arc, add
a vertex, split an arc at a point -- addressed by stable arc ids (the starting graph's
CSR index; inserted arcs get the next ids; deleted ids are never reused). On the
``cupy`` backend the device copy is updated in place (no host-side rebuild);
``compact()`` gives a CSRGraph (rows as ``CSRGraph.from_edges``) plus each CSR arc's
stable id, for ``sssp``, ``multi_source`` and betweenness.

Layout: ``api`` (public types, validation messages), ``layout`` (states, codes, the CSR
sort shared by both backends), ``cpu`` (host arrays: the CPU backend and the validating
mirror), ``cuda`` + ``dynamic.cu`` (device arrays and kernels), ``bench`` (timings).
"""

from .api import EditBatch, EditSummary, MutableGraph, compile_kernels
from .layout import ARC_DELETED, ARC_DISABLED, ARC_LIVE

__all__ = ["ARC_DELETED", "ARC_DISABLED", "ARC_LIVE", "EditBatch", "EditSummary",
           "MutableGraph", "compile_kernels"]
