"""Sample maps shipped with Signpost (see README.md in this folder for source and licence).

``SAMPLE_MAP`` is the map the app opens at start: central Helsinki, roads, footways,
railways, tram and subway lines with their stations (OpenStreetMap data, ODbL).
"""

from __future__ import annotations

from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent

# Central Helsinki (Kamppi / Kluuvi / Katajanokka), 24,260 nodes, 5,130 ways.
SAMPLE_MAP: Path = SAMPLES_DIR / "helsinki.osm.pbf"

# Attribution the app must show wherever the sample map is drawn (ODbL section 4.3).
SAMPLE_ATTRIBUTION = "© OpenStreetMap contributors (ODbL)"

__all__ = ["SAMPLES_DIR", "SAMPLE_ATTRIBUTION", "SAMPLE_MAP"]
