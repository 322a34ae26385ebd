"""The Signpost desktop application (PySide6 + pyqtgraph).

Importing this package does not import Qt: the non-Qt helpers (``geometry``, ``export``,
``raster``) are used by benchmarks; Qt modules are imported where they are
used. It first checks the Qt binding (``_compat``): a release known to crash this Python
is refused with a clear message before any Qt call. It sets ``OMP_WAIT_POLICY=passive``
unless set (see below).
"""

import os

from ._compat import check_binding

# numba's parallel kernels (the rasteriser, the field's colours) run on OpenMP threads that
# by default spin after each parallel region: on a busy 2-core machine the spinning thread
# took the core from the other one and every call paid ~8 ms, and it takes the GUI thread's
# core too. Idle waiters sleep instead (read once, when numba starts its threads).
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

check_binding()
