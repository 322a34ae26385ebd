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
