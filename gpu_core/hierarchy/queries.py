"""The route index's query types, one table (issue 38): the API's checks, the ``auto``
rule's candidates and ``signpost bench matrix`` all read :data:`QUERY_TABLE`, so a new
query type is a row here plus its search (``few.py`` on the CPU, ``cuda.py`` on the GPU).

No compiled code here: reading the table compiles nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidArgumentError


@dataclass(frozen=True)
class Query:
    name: str
    backends: tuple[str, ...]  # resolved backends that run it ("cpu", "cupy")
    needs_targets: bool  # a matrix to every vertex is a full sweep: only phast and auto
    what: str  # one line for help texts and the bench's table


QUERY_TABLE: tuple[Query, ...] = (
    Query("auto", ("cpu", "cupy"), False, "picks phast, rphast or buckets by size (few.choose_query)"),
    Query("phast", ("cpu", "cupy"), False, "sweeps every vertex downward (PHAST / GPHAST)"),
    Query("rphast", ("cpu", "cupy"), True, "sweeps only the targets' part (restricted PHAST)"),
    Query("buckets", ("cpu",), True, "meets forward and backward upward searches in buckets"),
)
QUERIES: tuple[str, ...] = tuple(q.name for q in QUERY_TABLE)
_BY_NAME = {q.name: q for q in QUERY_TABLE}


def queries_for(backend: str) -> tuple[str, ...]:
    """The query names ``backend`` ("cpu" or "cupy") runs, in table order."""
    return tuple(q.name for q in QUERY_TABLE if backend in q.backends)


def check_query(query: str, backend: str, has_targets: bool) -> None:
    """InvalidArgumentError unless ``query`` runs on ``backend`` for this call's shape."""
    spec = _BY_NAME.get(query)
    if spec is None:
        raise InvalidArgumentError(f"unknown query {query!r}; choose one of {', '.join(QUERIES)}")
    if spec.needs_targets and not has_targets:
        raise InvalidArgumentError(f"the {query} query needs targets")
    if backend not in spec.backends:
        only = " and ".join(spec.backends)
        raise InvalidArgumentError(f"the {query} query runs on the {only} backend only")
