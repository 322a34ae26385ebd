"""The version of Signpost, read once: the installed package's metadata, else the source
tree's ``app.__version__`` (the About box and ``signpost --version`` say it)."""

from __future__ import annotations


def version() -> str:
    """"0.1.0" (the installed distribution's version when installed)."""
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        try:
            return dist_version("signpost")
        except PackageNotFoundError:
            pass
    except ImportError:  # pragma: no cover - Python without importlib.metadata
        pass
    from app import __version__

    return __version__
