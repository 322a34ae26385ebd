"""The Signpost desktop application (PySide6 + pyqtgraph).

Importing this package does not import Qt: the non-Qt helpers (``geometry``, ``export``,
``raster``) are used by benchmarks; Qt modules are imported where they are
used. It first checks the Qt binding (``_compat``): a release known to crash this Python
is refused with a clear message before any Qt call.
"""

from ._compat import check_binding

check_binding()
