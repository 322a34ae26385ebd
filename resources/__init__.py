"""Static resources of the desktop app: colour maps, road styles, default settings, icons.

Plain files read with the standard library (no Qt here), so the CLI and tests can use them
without PySide6. Icons are hand-written SVG files in ``resources/icons/``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent


def path(name: str) -> Path:
    """Absolute path of a resource file (``name`` relative to ``resources/``)."""
    p = ROOT / name
    if not p.exists():
        raise FileNotFoundError(f"resource {name!r} not found in {ROOT}")
    return p


def icon_path(name: str) -> Path:
    """Path of ``icons/<name>.svg``."""
    return path(f"icons/{name}.svg")


@functools.cache
def _json(name: str) -> dict:
    with open(path(name), encoding="utf-8") as fh:
        return json.load(fh)


def cli_help(command: str) -> tuple[str, str]:
    """(help, description) of ``signpost COMMAND`` (``cli_help.json``: prose kept out of
    the code, one place for every command's text)."""
    entry = _json("cli_help.json")[command]
    return entry["help"], entry["description"]


def colormap_names() -> list[str]:
    return sorted(_json("colormaps.json"))


def colormap(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(positions 0..1, RGB uint8 k×3) control points of a colour map in colormaps.json."""
    maps = _json("colormaps.json")
    if name not in maps:
        raise KeyError(f"unknown colour map {name!r}; choose one of {', '.join(sorted(maps))}")
    stops = maps[name]
    pos = np.array([s[0] for s in stops], dtype=np.float64)
    rgb = np.array([s[1] for s in stops], dtype=np.uint8)
    return pos, rgb


def colormap_lut(name: str, n: int = 256) -> np.ndarray:
    """``n`` RGB colours (uint8 n×3) sampled evenly from a colour map."""
    pos, rgb = colormap(name)
    t = np.linspace(0.0, 1.0, n)
    return np.stack([np.interp(t, pos, rgb[:, c]) for c in range(3)], axis=1).round().astype(np.uint8)


def road_styles() -> dict:
    """Style per road class name: {"colour": "#rrggbb", "width": px, "z": order}."""
    return dict(_json("road_styles.json"))


def default_settings() -> dict:
    """Default values of every persisted setting (the app's QSettings fall back to these)."""
    return dict(_json("default_settings.json"))


def option_help(name: str) -> str:
    """The help of an option several commands share (``cli_help.json``'s ``options``)."""
    return str(_json("cli_help.json")["options"][name])
