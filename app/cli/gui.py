"""``signpost gui [MAP]``: the desktop application (PySide6 is imported only when it runs)."""

from __future__ import annotations

import argparse

import resources
from app.cli._common import (
    SNAP_HELP,
    _snap_limit,
    add_command,
    add_edit_arguments,
    add_gis_arguments,
)

# argparse help and description: resources/cli_help.json
HELP, DESCRIPTION = resources.cli_help("gui")


def register(sub) -> None:
    from gpu_core.backend import BACKENDS
    from gpu_core.sssp import STRATEGIES

    p = add_command(sub, "gui", run, HELP, DESCRIPTION, map_file=False)
    p.add_argument("map", nargs="?", default=None, metavar="MAP", help="map file (default: the sample map)")
    p.add_argument("--profile", default=None, help="weight profile: length, walk, drive, multimodal")
    p.add_argument("--route", nargs=2, metavar=("FROM", "TO"), help="route between two points (LON,LAT or node:ID)")
    p.add_argument("--screenshot", metavar="FILE.png", help="save the window once drawn, then exit")
    p.add_argument("--strategy", default=None, choices=STRATEGIES, help="SSSP strategy")
    p.add_argument("--backend", default=None, choices=BACKENDS, help="compute backend")
    p.add_argument("--max-snap", type=_snap_limit, default=1000.0, metavar="M", help=SNAP_HELP)
    p.add_argument("--size", default=None, metavar="WxH", help="window size, e.g. 1600x1000")
    p.add_argument("--settings", default=None, metavar="FILE.ini", help="settings file to use")
    add_gis_arguments(p)
    add_edit_arguments(p)


def run(args: argparse.Namespace) -> int:
    from app.cli._common import edit_arguments

    args.edit_list = edit_arguments(args)  # a bad spec or scenario: one line, exit 2
    try:
        from app.gui.launch import run_gui
    except ImportError as exc:
        from app.cli import CliError

        raise CliError(f"the desktop application needs PySide6 and pyqtgraph ({exc})") from None
    return run_gui(args)
