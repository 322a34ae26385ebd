"""mypy's configuration keeps what issue 38 typed: check_untyped_defs on, and no
``ignore_errors`` override for a package whose errors were fixed (gpu_core, maps, osutil,
resources, app.bench, app.progress, app.session). A package still being typed may stay
listed; each listed module then has its reason in the override's comment (issue 38: "the ignore_errors list empty or
each entry with its reason")."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
TYPED = ("gpu_core", "maps", "osutil", "resources", "app.bench", "app.progress",
         "app.session")


def _mypy() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["mypy"]


def _ignored() -> list[str]:
    out: list[str] = []
    for block in _mypy().get("overrides", []):
        if block.get("ignore_errors"):
            mods = block["module"]
            out.extend([mods] if isinstance(mods, str) else mods)
    return out


def test_untyped_bodies_are_checked() -> None:
    assert _mypy().get("check_untyped_defs") is True


def test_typed_packages_have_no_ignore_errors() -> None:
    back = [m for m in _ignored()
            if any(m == p or m.startswith(p + ".") for p in TYPED)]
    assert back == [], f"ignore_errors again for {back}: fix their errors instead"
