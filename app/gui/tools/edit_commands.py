"""The Edit tool's undo stack entries: one ``QUndoCommand`` per edit, named as the panel
lists it, and the file id a scenario uses for a node."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoCommand


def file_id(net, v: int):
    """The source-file id of node index ``v`` as a scenario names it: a Python int, or
    the name on maps of named nodes (GraphML)."""
    i = int(net.node_ids[v])
    names = net.meta.get("node_names") if isinstance(net.meta, dict) else None
    return str(names[i - 1]) if names else i


def describe(edit) -> str:
    """The text of an edit in the panel's list: action, target, value (a scenario file's
    labels name the file and feature: too long for the list)."""
    text = edit.describe()
    return text + (f" ({edit.road_class})" if edit.action == "add" and edit.road_class else "")


class EditCommand(QUndoCommand):
    """One edit on the Edit tool's (``tool``) stack. Pushed after the edit was applied (so a refused edit
    never reaches the stack): the first redo only updates the view."""

    def __init__(self, tool: Any, edit, summary, before, *, silent: bool = False):
        super().__init__(describe(edit))
        self.tool, self.edit = tool, edit
        self.summary = summary
        self.before = before  # (source, result) before this edit, or None
        self.after = None  # (source, result) after it, once known
        self._applied = True
        self._silent = silent  # opened from a file: the tool updates once for all

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            if not self._silent:
                self.tool.changed(self.summary, None)
            return
        self.tool.redo_command(self)

    def undo(self) -> None:
        self.tool.undo_command(self)

    def forget_results(self) -> None:
        self.before = self.after = None
