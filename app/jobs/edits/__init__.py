"""What-if editing (issue 15): edits addressed the way users think, scenario files, and a
map with edits applied (Qt-free; the CLI's --close/--scenario and the GUI's Edit tool).

* :mod:`.model` -- :class:`Edit`, :func:`parse_close` (``nodes:A,B``, ``arc:A,B``,
  ``way:ID``, ``LON,LAT``), :func:`parse_turn` (``FROM_WAY,VIA_NODE,TO_WAY``) and
  :class:`EditError` (a MapError: one line, exit 2).
* :mod:`.turn_edits` -- ``ban_turn`` / ``lift_turn``: a via node re-split on the edited
  graph (issue 39).
* :mod:`.files` -- scenario files (GeoJSON FeatureCollection, one feature per edit).
* :mod:`.scenario` -- :class:`Scenario` (a gpu_core MutableGraph with undo/redo and the
  edited RoadNetwork) and :func:`apply_edits`.
* :mod:`.targets` -- target to arc ids (nodes, ways, snapped points, polygons);
  :mod:`.actions` -- what each action does (costs by the map's profile and unit);
  :mod:`.store` / :mod:`.stage` -- attributes of inserted arcs, pending edits.
"""

from .files import read_scenario, write_scenario
from .model import ACTIONS, Edit, EditError, parse_close, parse_turn
from .scenario import AppliedEdit, Scenario, apply_edits

__all__ = ["ACTIONS", "AppliedEdit", "Edit", "EditError", "Scenario", "apply_edits",
           "parse_close", "parse_turn", "read_scenario", "write_scenario"]
