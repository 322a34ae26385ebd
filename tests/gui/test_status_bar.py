"""Issue 27: the status bar reads well at 1024 px: a message wider than the room the
permanent widgets leave ends in "…" (never mid-word under a widget), the full text is in
the tooltip and ``currentMessage()``; wider windows show more of it."""

from __future__ import annotations

from PySide6.QtWidgets import QStatusBar

from app.gui.status_bar import StatusBar, message_problems

LONG = ("Field: search 1,000 ms, drawn in 31 ms; 2,972 phases; reached 1,428,025 of "
        "1,428,025 nodes (the search radius was 1,000 m and nothing else was asked)")


def _painted(bar) -> str:
    return QStatusBar.currentMessage(bar)  # what the bar paints (the base class's message)


def test_long_message_is_elided_with_full_text_in_tooltip(qtbot, window):
    bar = window.statusBar()
    assert isinstance(bar, StatusBar)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024, timeout=3000)
    window.route_index.label.setText("route index: starting")
    window.route_index.label.setVisible(True)  # the widest permanent widgets at once
    qtbot.wait(50)
    window.status(LONG)
    qtbot.wait(50)
    shown = _painted(bar)
    assert shown.endswith(" …") and LONG.startswith(shown[:-2] + "; ")  # whole phrases
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.room()
    assert bar.currentMessage() == LONG and bar.toolTip() == LONG
    assert message_problems(bar) == []
    # the message starts with the search time: it stays readable at 1024 px
    assert shown.startswith("Field: search 1,000 ms")

    window.resize(1900, 700)  # more room: more of the message, then all of it
    qtbot.waitUntil(lambda: len(_painted(bar)) > len(shown), timeout=3000)
    window.route_index.label.setVisible(False)
    qtbot.waitUntil(lambda: _painted(bar) == LONG, timeout=3000)
    assert bar.toolTip() == ""


def test_elide_cuts_at_phrases_then_characters(qtbot, window):
    from app.gui.status_bar import elide

    fm = window.statusBar().fontMetrics()
    assert elide(LONG, fm, 10_000) == LONG
    two = LONG[:LONG.rfind("; ")] + " …"
    assert elide(LONG, fm, fm.horizontalAdvance(two)) == two
    one = LONG[:LONG.find("; ")] + " …"
    assert elide(LONG, fm, fm.horizontalAdvance(one) + 1) == one
    tiny = elide(LONG, fm, fm.horizontalAdvance("Field: se…"))
    assert tiny.endswith("…") and len(tiny) < 12 and LONG.startswith(tiny[:-1])


def test_plain_status_bar_clipping_is_reported(qtbot):
    bar = QStatusBar()
    qtbot.addWidget(bar)
    bar.resize(300, 30)
    bar.showMessage(LONG)
    assert message_problems(bar) and "clipped" in message_problems(bar)[0]
    bar.showMessage("short")
    assert message_problems(bar) == []


def test_timeout_clears_message_and_refits_keep_it(qtbot, window):
    bar = window.statusBar()
    window.status("short message", 300)
    window.resize(1100, 700)  # a re-fit while it shows does not restart or drop it
    qtbot.wait(50)
    assert bar.currentMessage() == "short message"
    qtbot.waitUntil(lambda: bar.currentMessage() == "", timeout=3000)
    assert _painted(bar) == "" and bar.toolTip() == ""
    # a status tip Qt shows itself (a menu's) is answered as it is
    QStatusBar.showMessage(bar, "tip from a menu")
    assert bar.currentMessage() == "tip from a menu"
