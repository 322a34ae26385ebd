"""File → Open database…: a connection string, then a picker of the tables that look
like road networks (``maps.postgis.catalog``: pgRouting edges or line geometry). Listing runs
on the window's compute worker; the chosen table loads like a map file
(``postgresql://...?table=NAME``). No password is kept: what the window remembers (the
recent-files list, its title) is the URI without it."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
)

from maps.postgis.conn import redact

PLACEHOLDER = "postgresql://user@host:5432/database  (or ?host=/run/postgresql, ?service=name)"


def _tables_job(uri: str):
    """The worker's job: the network-like tables of ``uri`` (plain data)."""

    def fn(ctx):
        from maps.postgis.catalog import network_tables

        ctx.progress(None, "listing tables")
        return network_tables(uri)

    fn.__name__ = "list_tables"
    return fn


class DatabaseDialog(QDialog):
    """Connection string + table picker; Open loads the table into the window."""

    def __init__(self, window, uri: str = "") -> None:
        super().__init__(window)
        self.win = window
        self.setWindowTitle("Open database")
        self.resize(560, 380)
        self.uri = QLineEdit(uri)
        self.uri.setPlaceholderText(PLACEHOLDER)
        self.btn_list = QPushButton("List tables")
        self.tables = QListWidget()
        self.message = QLabel("Connection details may also come from PGHOST, PGUSER, "
                              "PGPASSWORD, ~/.pgpass or pg_service.conf.")
        self.message.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Connection", self.uri)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.btn_open = self.buttons.button(QDialogButtonBox.StandardButton.Open)
        self.btn_open.setEnabled(False)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.btn_list)
        lay.addWidget(QLabel("Tables that look like road networks:"))
        lay.addWidget(self.tables, 1)
        lay.addWidget(self.message)
        lay.addWidget(self.buttons)
        self.btn_list.clicked.connect(self.list_tables)
        self.uri.returnPressed.connect(self.list_tables)
        self.tables.currentItemChanged.connect(lambda *_: self.btn_open.setEnabled(
            self.tables.currentItem() is not None))
        self.tables.itemDoubleClicked.connect(lambda *_: self.accept())
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    def list_tables(self) -> None:
        """Ask the worker for the tables; the list fills when it answers."""
        text = self.uri.text().strip()
        if not text.lower().startswith(("postgresql://", "postgres://")):
            self.message.setText("Give a postgresql:// connection string.")
            return
        self.tables.clear()
        self.btn_open.setEnabled(False)
        self.btn_list.setEnabled(False)
        self.message.setText(f"Connecting to {redact(text)}…")
        self.win.submit(_tables_job(text), self._listed, failed=self._failed,
                        cancelled=lambda: self._failed("cancelled"), busy=True)

    def _listed(self, tables) -> None:
        self.btn_list.setEnabled(True)
        self.win.settings.set_last_database(self.uri.text().strip())
        for t in tables:
            item = QListWidgetItem(t.describe())
            item.setData(256, t.qualified)  # Qt.UserRole
            self.tables.addItem(item)
        if tables:
            self.tables.setCurrentRow(0)
        self.message.setText(f"{len(tables)} table(s)" if tables else
                             "No table with source/target columns or line geometry.")

    def _failed(self, exc) -> None:
        self.btn_list.setEnabled(True)
        self.message.setText(f"Could not list the tables: {exc}")

    def chosen_uri(self) -> str | None:
        """The URI of the selected table (the typed string plus ``table=``)."""
        item = self.tables.currentItem()
        if item is None:
            return None
        from urllib.parse import quote

        text = self.uri.text().strip()
        sep = "&" if "?" in text else "?"
        return f"{text}{sep}table={quote(item.data(256), safe='.')}"

    def accept(self) -> None:
        uri = self.chosen_uri()
        if uri is None:
            return
        super().accept()
        self.win.show_map(uri)
