"""The Signpost desktop application (PySide6 + pyqtgraph).

Importing this package does not import Qt: the non-Qt helpers (``geometry``, ``routing``,
``export``, ``raster``) are used by benchmarks; Qt modules are imported where they are
used. It does apply the binding work-around of ``_compat`` first (ctypes only), so that
no Qt call of any module below happens before it.
"""

from ._compat import pin_none

pin_none()
