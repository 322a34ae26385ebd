"""Qt-free jobs: one module per job (route, sssp, matrix, billboards, mst, pagerank, ...).

Each job module has the same shape::

    @dataclass(frozen=True)
    class XOptions: ...          # plain options (what a CLI flag or a GUI widget sets)

    @dataclass
    class XResult: ...           # plain results (numpy arrays, numbers, ids)

    def run(net: RoadNetwork, opts: XOptions, *, progress=None, cancel=None) -> XResult

The command line formats a result; the GUI runs ``run`` in its worker thread and draws
the result. Nothing here imports Qt, the command-line package or the GUI package, so a
job runs the same from either (and from a GPU machine without Qt).

Jobs: ``route`` (one route type, its JSON, reading routes from a search), ``sssp``,
``matrix``, ``billboards``; ``maps`` opens maps and resolves typed points for all of them.
"""
