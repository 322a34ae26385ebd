"""File → Open database… against the real test database: the picker lists the tables
that look like networks, the chosen one loads on the worker, no password is kept."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from tests.gui.conftest import make_window, settings_file  # noqa: E402, F401 (fixtures)
from tests.postgis.conftest import sql  # noqa: E402

pytestmark = pytest.mark.gui
SECRET = "pw-not-kept"


def test_pick_a_table_and_open_it(qtbot, make_window, settings_file, pg, grid_table) -> None:  # noqa: F811
    sql(pg, "DROP TABLE IF EXISTS not_a_network; CREATE TABLE not_a_network (a int)")
    win = make_window()
    uri = pg.replace("postgres@", f"postgres:{SECRET}@")
    dlg = win.open_database_dialog(uri)
    dlg.list_tables()
    qtbot.waitUntil(lambda: dlg.tables.count() > 0 and dlg.btn_list.isEnabled(), timeout=20000)
    names = [dlg.tables.item(i).data(256) for i in range(dlg.tables.count())]
    assert "grid_utm" in names and "not_a_network" not in names
    dlg.tables.setCurrentRow(names.index("grid_utm"))
    assert "pgRouting edges with geometry" in dlg.tables.currentItem().text()
    with qtbot.waitSignal(win.mapLoaded, timeout=30000):
        dlg.accept()
    assert win.net.num_nodes == 900 and win.net.has_coordinates
    assert SECRET not in win.windowTitle() and SECRET not in (win.map_path or "")
    win.settings.sync()
    kept = settings_file.read_text()
    assert "table=grid_utm" in kept and SECRET not in kept


def test_a_bad_connection_is_one_line_without_the_password(qtbot, make_window, pg) -> None:  # noqa: F811
    win = make_window()
    bad = pg.replace("postgres@", f"postgres:{SECRET}@").replace("/signpost?", "/nope?")
    dlg = win.open_database_dialog(bad)
    dlg.list_tables()
    qtbot.waitUntil(lambda: dlg.btn_list.isEnabled(), timeout=20000)
    text = dlg.message.text()
    assert 'database "nope" does not exist' in text and SECRET not in text
    assert dlg.tables.count() == 0 and not dlg.btn_open.isEnabled()


def test_route_in_the_app_on_osm2pgrouting_table_equals_pgrouting(qtbot, make_window,  # noqa: F811
                                                                   helsinki, pg) -> None:
    from maps.model.weights import unit_scale
    from tests.gui.helpers import run_search_to

    win = make_window()
    with qtbot.waitSignal(win.mapLoaded, timeout=30000):
        win.show_map(helsinki)
    net = win.net
    import numpy as np

    comp = net.components()[1]
    main = np.flatnonzero(comp == np.bincount(comp).argmax())
    a, b = int(main[0]), int(main[len(main) // 2])
    with qtbot.waitSignal(win.routeShown, timeout=30000) as sig:
        run_search_to(qtbot, win, (net.x[a], net.y[a]), (net.x[b], net.y[b]))
    route = sig.args[0]
    s, t = int(net.node_ids[route.source]), int(net.node_ids[route.target])
    ((cost,),) = sql(pg, "SELECT agg_cost FROM pgr_dijkstra('SELECT gid AS id, source, target, "
                         "cost, reverse_cost FROM ways', %s::bigint, %s::bigint) WHERE edge = -1",
                     (s, t))
    scale = 10.0 ** -unit_scale(net.unit)[1]
    # float costs become integers at one scale: half a unit per arc at most
    assert abs(route.cost * scale - cost) <= 0.5 * scale * len(route.arcs) + 1e-12 * cost
