"""Signpost: the command line and the Qt desktop application.

Importing ``app`` (and ``app.cli``) loads no Qt: the GUI modules live in ``app.gui`` and
are imported only by ``signpost gui`` / ``python -m app``, so the CLI and the benchmarks
run on machines without PySide6 (such as the GPU machine).
"""

__version__ = "0.1.0"
