"""What the route tool declares to the window (``Tool.result_layers``, ``Tool.stage``):
its layers in View → Layers and its representative screen. ``tool`` is the RouteTool."""

from __future__ import annotations


def route_layers(tool) -> list:
    """The route tool's layers: the route with its points, the field, the isochrones."""
    from ..layers import Layer
    from ..turn_layer import TurnLayer

    canvas, win = tool.win.canvas, tool.win
    win.turn_layer = TurnLayer(canvas)  # restricted junctions, zoomed in (issue 39)

    def route_items():
        return [*canvas.route_items, canvas.snap_item, canvas.source_marker, canvas.dest_marker]

    def route_toggle(on: bool) -> None:
        for it in route_items():
            if it is None:
                continue
            if it in (canvas.source_marker, canvas.dest_marker):  # shown where a point is set
                which = tool.source if it is canvas.source_marker else tool.target
                it.setVisible(on and which is not None)
            else:
                it.setVisible(on)

    def field_toggle(on: bool) -> None:
        chk = win.algo_panel.chk_field
        if chk.isChecked() != on:
            chk.setChecked(on)

    def iso_items():
        lay = tool._iso_layer
        return [] if lay is None else [*lay.items, lay.legend]

    return [Layer("Route and its points", route_items, tool.clear_route, route_toggle),
            Layer("Distance field", lambda: list(canvas.field_items), tool.clear_field,
                  field_toggle),
            Layer("Isochrone polygons", iso_items,
                  lambda: win.algo_panel.chk_polys.setChecked(False)),
            Layer("Turn restrictions", win.turn_layer.items, None, win.turn_layer.toggle)]


def route_stage(tool, wait) -> None:
    """A route with its field between two well spread points."""
    from ..staging import idle, spread_points

    a, b = spread_points(tool.win, 2)
    tool.win.canvas.click_at(*a, "left")
    wait(lambda: idle(tool.win) and tool.result is not None, 60)
    tool.win.canvas.click_at(*b, "right")
    wait(lambda: idle(tool.win), 60)
