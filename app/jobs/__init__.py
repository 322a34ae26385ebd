"""Qt-free jobs: one module per job (route, sssp, matrix, billboards, mst, pagerank, ...).

Each job module has the same shape::

    @dataclass(frozen=True)
    class XOptions: ...          # plain options (what a CLI flag or a GUI widget sets)

    @dataclass
    class XResult: ...           # plain results (numpy arrays, numbers, ids)

    def run(net: RoadNetwork, opts: XOptions, *, progress=None, cancel=None) -> XResult

The CLI (``app/cli``) formats a result; the GUI (``app/gui``) runs ``run`` in its worker
thread and draws the result. Nothing here imports Qt or ``app.cli``.
"""
