"""The worker threads and the window's busy indicator: the progress bar and Cancel hide
as soon as the job the window waits for has ended (issue 14's race), garbage is collected
in the GUI thread only, and an error reaches the GUI without the worker's frames."""

from __future__ import annotations

import gc
import threading

from app.gui.gc_guard import automatic_collection_off
from app.gui.workers import Job, JobRunner


def test_progress_and_cancel_hide_when_each_job_ends(qtbot, window, monkeypatch):
    # The end signal used to be sent while the worker still counted as busy, and the
    # window asked the worker: a GUI quicker than the worker left the bar and Cancel
    # showing. The window now goes by its own record; the worker trailing is simulated.
    for i in range(5):
        with qtbot.waitSignal(window.searchFinished, timeout=10000):
            window.submit(lambda ctx, i=i: i, done=lambda _r: None)
            assert window.progress.isVisible() and window.btn_cancel.isVisible()
            monkeypatch.setattr(window.compute, "busy", lambda: True)
        assert not window.progress.isVisible(), f"job {i}"
        assert not window.btn_cancel.isVisible(), f"job {i}"
        monkeypatch.undo()


def test_new_map_during_a_job_hides_progress(qtbot, window, fixture_net):
    release = threading.Event()
    started = threading.Event()

    def slow(ctx):
        started.set()
        while not ctx.cancelled() and not release.is_set():
            release.wait(0.01)
        return 0

    window.submit(slow, done=lambda _r: None)
    assert started.wait(5)
    assert window.progress.isVisible()
    window.set_network(fixture_net)  # the old map's job is cancelled and forgotten
    assert not window.progress.isVisible() and not window.btn_cancel.isVisible()
    release.set()
    qtbot.waitUntil(lambda: not window.compute.busy(), timeout=5000)
    assert not window.progress.isVisible()


def test_superseded_load_is_not_a_failure(qtbot, window):
    from app.gui.main_window import sample_map_path

    path = sample_map_path()
    failures = []
    window.mapLoadFailed.connect(failures.append)
    started, release = threading.Event(), threading.Event()

    def hold(ctx):
        started.set()
        release.wait(10)

    qtbot.waitUntil(lambda: not window.loader.busy(), timeout=30000)
    window.loader.submit(Job(hold, kind="hold"))
    assert started.wait(5)
    window.show_map(path)  # pending behind the held job ...
    window.show_map(path)  # ... and superseded here: cancelled, but not a failed load
    assert failures == [] and window.progress.isVisible()
    with qtbot.waitSignal(window.mapLoaded, timeout=60000):
        release.set()
    assert failures == []
    qtbot.waitUntil(lambda: not window.progress.isVisible(), timeout=5000)


def test_automatic_collection_off_while_a_window_lives(make_window, fixture_net):
    was = gc.isenabled()
    w = make_window(fixture_net)
    assert automatic_collection_off()
    w.close()
    assert gc.isenabled() == was


def test_failed_job_sends_no_worker_frames(qtbot):
    runner = JobRunner("test-runner")
    got = []
    runner.failed_job.connect(lambda _j, _k, exc: got.append(exc))

    def boom(ctx):
        try:
            raise KeyError("inner")
        except KeyError as e:
            raise ValueError("bad value 7") from e

    try:
        with qtbot.waitSignal(runner.failed_job, timeout=5000):
            runner.submit(Job(boom))
    finally:
        assert runner.shutdown()
    exc = got[0]
    assert str(exc) == "bad value 7" and exc.__traceback__ is None
    assert exc.__cause__.__traceback__ is None
    assert "bad value 7" in exc.__signpost_tb__ and "boom" in exc.__signpost_tb__
