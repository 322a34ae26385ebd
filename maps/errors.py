"""Typed errors raised by map loading, building and querying.

Every error names what was wrong (the file and line, or the value) in its message, so
the CLI can print it as it is and exit with status 2, and the app can show it in a dialog.
"""

from __future__ import annotations

from osutil.secrets import redact


class MapError(Exception):
    """Base class of every error the ``maps`` package raises on bad input."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        where = ""
        if path is not None:  # a database address never shows its password
            path = redact(str(path))
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
        self.path = path
        self.line = line
        self.detail = message


class MapFormatError(MapError):
    """A file is malformed, truncated or holds values out of range."""


class LayerChoiceError(MapFormatError):
    """A file holds several line layers and none was named: ``layers`` lists them (the
    app offers them in a picker, the CLI asks for ``--layer``)."""

    def __init__(self, message: str, *, path: str | None = None, layers: list[str]):
        super().__init__(message, path=path)
        self.layers = list(layers)


class UnknownFormatError(MapError):
    """The file's extension names no format Signpost reads."""


class EmptyMapError(MapError):
    """The map has no nodes, or no way usable by the chosen profile."""


class ProfileError(MapError):
    """An unknown weight profile, or one the map cannot support."""


class NodeNotFoundError(MapError):
    """A ``node:ID`` names an id that is not in the map."""


class PointError(MapError):
    """A point could not be parsed, or lies too far from any road to snap to."""


class UnreachableError(MapError):
    """No route exists between two points (they lie in different components)."""


class LoadCancelledError(MapError):
    """The caller's ``cancel()`` returned True while a map was loading."""


# The same error under the name the OSM loader's brief uses (one class, two names).
LoadCancelled = LoadCancelledError
