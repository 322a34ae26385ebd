"""The Signpost desktop application (PySide6 + pyqtgraph).

Importing this package does not import Qt: the non-Qt helpers (``geometry``, ``routing``,
``export``) are used by benchmarks; Qt modules are imported where they are used.
"""
