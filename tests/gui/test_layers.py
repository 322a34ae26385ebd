"""The app's open path on a file with several line layers: a layer picker, then the load."""

from __future__ import annotations

import pytest

from tests.maps.gis_files import grid_lines
from tests.maps.test_gis_crs import _multi_layer_gpkg


def test_layer_picker_loads_the_chosen_layer(qtbot, make_window, tmp_path, monkeypatch):
    pytest.importorskip("pyogrio")
    lines, props = grid_lines()
    p = _multi_layer_gpkg(tmp_path / "city.gpkg", lines, props)
    w = make_window()
    monkeypatch.delenv("SIGNPOST_NO_DIALOGS")
    w.show_map(str(p))
    qtbot.waitUntil(lambda: w.layer_dialog is not None, timeout=30000)
    dlg = w.layer_dialog
    assert [dlg.comboBoxItems()[i] for i in range(2)] == ["paths", "streets"]
    dlg.setTextValue("streets")
    dlg.accept()
    qtbot.waitUntil(lambda: w.net is not None and w.net.meta.get("layers") == ["streets"],
                    timeout=30000)
    assert w.net.num_nodes == 16 and w.net.meta["crs"] == "EPSG:3857"
