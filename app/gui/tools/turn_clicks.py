"""The Edit tool's "Ban a turn" mode (issue 39): click the road you come from, then the
road you turn onto, at a junction they share: the turn is banned (``ban_turn``), or, when
it is banned already (by the map or an earlier edit), lifted (``lift_turn``). One edit
on the undo stack either way; the route, the field and the change view follow it."""

from __future__ import annotations

from maps.model.turns import to_original

from .edit_commands import file_id

TURN_HINT = ("click the road you come from, then the road you turn onto: the turn is "
             "banned, or lifted when it is banned already")


def turn_of(net, first: int, second: int):
    """(from-way, via node index, to-way) of the turn from arc ``first``'s road onto arc
    ``second``'s, or a sentence saying why there is none."""
    t = to_original(net, net.arc_sources()[[first, second]])
    h = to_original(net, net.indices[[first, second]])
    shared = sorted({int(t[0]), int(h[0])} & {int(t[1]), int(h[1])})
    if not shared:
        return "the two roads do not meet: click two roads at one junction"
    f, w = int(net.edge_source_id[first]), int(net.edge_source_id[second])
    if f < 0 or w < 0:
        return "a road without a way id (an added link) cannot take a turn ban"
    return f, shared[0], w


class TurnPicker:
    """Two clicks make one turn edit (module doc); ``tool`` is the Edit tool."""

    def __init__(self, tool):
        self.tool = tool
        self.first: int | None = None

    def reset(self) -> None:
        self.first = None

    def click(self, x: float, y: float) -> bool:
        """One click at (x, y) metres; True when it made an edit."""
        from app.jobs.edits import Edit, EditError

        tool, win = self.tool, self.tool.win
        arc = tool.arc_under_pointer(x, y)
        if arc is None:
            win.status("No road under the pointer here: click on a road", 6000)
            return False
        if self.first is None:
            self.first = arc
            win.status("Turn: now click the road to turn onto", 8000)
            return False
        got = turn_of(win.net, self.first, arc)
        self.first = None
        if isinstance(got, str):
            win.status("Turn: " + got, 8000)
            return False
        f, v, w = got
        vid = file_id(win.net, v)
        sc = tool._ensure_scenario()
        label = f"turn way {f} → node {vid} → way {w}"
        try:  # banned already? then this click lifts it (a dry run on a scratch copy)
            from app.jobs.edits.turn_edits import turn_is_open

            action = "ban_turn" if turn_is_open(sc, f, v, w) else "lift_turn"
        except (EditError, ValueError) as exc:
            win.show_error("Edit refused", str(exc))
            return False
        verb = "ban" if action == "ban_turn" else "lift"
        return tool.apply(Edit(action, turn=(f, vid, w), label=f"{verb} {label}"))
