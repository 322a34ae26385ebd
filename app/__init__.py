"""Signpost: the command line and the Qt desktop application.

Importing ``app`` (and ``app.cli``) loads no Qt: the GUI modules live in ``app.gui`` and
are imported only by ``signpost gui`` / ``python -m app``, so the CLI and the benchmarks
run on machines without PySide6 (such as the GPU machine).
"""

__version__ = "0.1.0"

# numba's cache in a user folder that outlives reinstalls, before any module loads numba
from osutil.numba_cache import USER_CACHE as _NUMBA_CACHE  # noqa: E402, F401  (issue 41)
