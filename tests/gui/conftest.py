"""GUI test set-up: offscreen Qt, a temporary settings file, no modal dialogs, and a check
that no worker thread outlives its window."""

from __future__ import annotations

import gc
import os
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.gui._compat import check_binding  # noqa: E402

try:  # the GPU machine has no Qt: skip the GUI tests there instead of failing collection
    import PySide6  # noqa: F401
    import pytestqt  # noqa: F401
except ImportError:
    collect_ignore_glob = ["test_*.py"]
else:
    check_binding()  # PySide6 6.12.0 on Python 3.11 frees None (see app/gui/_compat.py)


def pytest_collection_modifyitems(config, items):
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.gui)


# Collections that ran on a thread other than the GUI thread (a worker allocating past the
# threshold): with app.gui.gc_guard holding automatic collection off while a window is
# open there must be none, since one could destroy Qt objects off the GUI thread.
_OFF_THREAD_GC: list[str] = []
_MAIN = threading.main_thread().ident


def _gc_callback(phase, info):  # keep it tiny: it runs inside the collector
    if phase == "start" and threading.get_ident() != _MAIN:
        _OFF_THREAD_GC.append(threading.current_thread().name)


gc.callbacks.append(_gc_callback)


@pytest.fixture(scope="session")
def fixture_net():
    from tests.gui.fixture_map import fixture_network

    return fixture_network()


@pytest.fixture
def settings_file(tmp_path, monkeypatch):
    path = tmp_path / "signpost-test.ini"
    monkeypatch.setenv("SIGNPOST_SETTINGS", str(path))
    monkeypatch.setenv("SIGNPOST_NO_DIALOGS", "1")
    return path


def raster_settled(rv) -> bool:
    """Whether a window's raster view (``canvas.raster``) shows a finished render: an id
    image, no render in flight or waiting for its pause. For ``qtbot.waitUntil``."""
    return rv.ids is not None and not rv.runner.busy() and not rv.timer.isActive()


@pytest.fixture
def make_window(qtbot, settings_file):
    """Factory of main windows; after the test every window is closed and every worker
    thread must have stopped (the test fails otherwise)."""
    from PySide6.QtCore import QThread

    from app.gui.main_window import MainWindow
    from app.gui.settings import Settings

    made = []
    _OFF_THREAD_GC.clear()

    def make(net=None):
        w = MainWindow(Settings(str(settings_file)), open_sample=False)
        qtbot.addWidget(w)
        w.resize(1000, 700)
        w.show()
        qtbot.waitExposed(w)
        if net is not None:
            w.set_network(net)
        made.append(w)
        return w

    yield make
    from PySide6.QtCore import QCoreApplication, QEvent

    for w in made:
        threads = w.findChildren(QThread)
        w.close()
        still = [t.objectName() for t in threads if t.isRunning()]
        assert not still, f"worker threads still running after close: {still}"
        # Destroy the window now, not during interpreter shutdown (PySide6 + pyqtgraph
        # objects collected at finalisation can crash the process).
        w.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    # Collect the closed windows' garbage here, in the GUI thread (closing gave automatic
    # collection back: see app/gui/gc_guard.py).
    gc.collect()
    assert not _OFF_THREAD_GC, f"garbage collected off the GUI thread: {_OFF_THREAD_GC[:5]}"


@pytest.fixture
def window(make_window, fixture_net):
    return make_window(fixture_net)


@pytest.fixture(scope="module")
def road_net():
    """The bundled sample map: road-shaped (so it gets an index), 5.5K nodes."""
    from app.gui.chrome import sample_map_path
    from app.jobs.maps import open_map

    path = sample_map_path()
    if path is None:
        pytest.skip("no sample map bundled")
    return open_map(path)
