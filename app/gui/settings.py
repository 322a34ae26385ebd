"""Persisted settings (QSettings): algorithm choices, window geometry, dock layout, recent files.

The file location can be forced with ``SIGNPOST_SETTINGS=/path/file.ini`` or the ``path``
argument (tests use a temporary file so they never touch the user's settings).
"""

from __future__ import annotations

import os

from PySide6.QtCore import QByteArray, QSettings

from resources import default_settings


class Settings:
    def __init__(self, path: str | None = None):
        path = path or os.environ.get("SIGNPOST_SETTINGS")
        if path:
            self.q = QSettings(path, QSettings.Format.IniFormat)
        else:
            self.q = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Signpost", "Signpost")
        self.defaults = default_settings()

    def algorithm(self) -> dict:
        """Algorithm/display values, defaults for any missing."""
        out = {}
        for k, dv in self.defaults.items():
            v = self.q.value(f"algorithm/{k}", dv)
            try:
                out[k] = type(dv)(v) if not isinstance(dv, str) else str(v)
            except (TypeError, ValueError):
                out[k] = dv
        out["show_field"] = str(self.q.value("algorithm/show_field", "true")).lower() in ("true", "1")
        out["isochrone_polygons"] = str(
            self.q.value("algorithm/isochrone_polygons", "false")).lower() in ("true", "1")
        return out

    def set_algorithm(self, values: dict) -> None:
        for k, v in values.items():
            self.q.setValue(f"algorithm/{k}", v)

    def recent_files(self) -> list[str]:
        v = self.q.value("recent/files", [])
        if isinstance(v, str):  # QSettings reads a one-item list back as its item
            v = [v] if v else []
        return [str(p) for p in v] if isinstance(v, (list, tuple)) else []

    def add_recent(self, path: str) -> list[str]:
        from maps.postgis.conn import is_db_uri, redact

        path = redact(path) if is_db_uri(path) else os.path.abspath(path)  # no password
        files = [p for p in self.recent_files() if p != path]
        files.insert(0, path)
        files = files[: int(self.defaults.get("recent_max", 8))]
        self.q.setValue("recent/files", files)
        return files

    def last_database(self) -> str:
        """The last connection string the Open database dialog listed (no password)."""
        return str(self.q.value("database/last", "") or "")

    def set_last_database(self, uri: str) -> None:
        from maps.postgis.conn import redact

        self.q.setValue("database/last", redact(uri))

    def geometry(self) -> tuple[QByteArray | None, QByteArray | None]:
        g = self.q.value("window/geometry")
        s = self.q.value("window/state")
        return (g if isinstance(g, QByteArray) else None, s if isinstance(s, QByteArray) else None)

    def set_geometry(self, geometry: QByteArray, state: QByteArray) -> None:
        self.q.setValue("window/geometry", geometry)
        self.q.setValue("window/state", state)

    def sync(self) -> None:
        self.q.sync()
