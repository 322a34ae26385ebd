"""Guards against known-bad Qt binding versions, checked before any window is made.

PySide6 6.12.0 on Python < 3.12 drops one reference to ``None`` on every call of a
method that returns nothing (``QLabel().setText("x")`` 10,000 times aborts CPython 3.11
with "none_dealloc: deallocating None"; from 3.12 ``None`` is immortal). pyproject.toml
excludes that release; this check turns an environment that has it anyway into one
clear message instead of a crash minutes later.
"""

from __future__ import annotations

import sys
from importlib import metadata


class BindingError(RuntimeError):
    """The installed Qt binding is known to crash this Python."""


def check_binding() -> None:
    """Raise BindingError when the installed PySide6 is a release known to crash here."""
    if sys.version_info >= (3, 12):
        return
    for dist in ("PySide6-Essentials", "PySide6"):
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
        if version.startswith("6.12.0"):
            raise BindingError(
                f"{dist} {version} corrupts Python {sys.version_info.major}."
                f"{sys.version_info.minor}'s reference counts (None is freed); install "
                "'PySide6-Essentials<6.12' (e.g. 6.11.3) or use Python 3.12+"
            )
