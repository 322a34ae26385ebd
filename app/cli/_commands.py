"""Each sub-command's one-line help, for ``signpost --help`` without importing it.

``app.cli.build_parser(argv)`` imports only the module of the command that ``argv`` names
(issue 41: the parser imported every command and every benchmark before any work); the
other commands are listed with these lines. ``tests/cli/test_lazy_parser.py`` checks that
each line equals the help its module registers, so the two never drift apart.
"""

from __future__ import annotations

HELP: dict[str, str] = {
    "info": "nodes, arcs, components, weights and arc kinds of a map",
    "route": "the least-cost route between two points",
    "sssp": "least cost from one point to every node, written as CSV or NPY",
    "isochrones": "",  # filled from resources/cli_help.json (below)
    "billboards": "K billboard sites that the most shortest routes pass (greedy group betweenness)",
    "matrix": "costs between two point lists (CSV/GeoJSON/GeoPackage in; CSV, Parquet or .npy out)",
    "mst": "",
    "pagerank": "",
    "generate": "write a benchmark map: kanto, random, rmat, ring, complete, grid",
    "bench": "run a benchmark and print its table",
    "cache": "show the cache folder (loaded maps, route indexes), its size and entries; --clear empties it",
    "gui": "",
}


def help_of(name: str) -> str:
    """The one-line help of ``signpost NAME`` (the table, else resources/cli_help.json)."""
    text = HELP.get(name, "")
    if text:
        return text
    import resources

    return resources.cli_help(name)[0]


def command_named(argv: list[str], commands: tuple[str, ...]) -> str | None:
    """The sub-command ``argv`` names (its first word that is not a global option), or
    None when it names none of ``commands`` (``--help``, nothing, a typo: argparse says).
    No option of ``signpost`` itself takes a value, so the first other word is COMMAND."""
    for a in argv:
        if a == "--":
            return None
        if a.startswith("-"):
            continue
        return a if a in commands else None
    return None
