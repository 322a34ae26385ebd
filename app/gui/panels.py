"""Side panels: the route panel (from/to, the numbers, how the points snapped and the part of
the network each is on) and the algorithm panel."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.jobs.route import FAR_SNAP_M  # the one threshold: `signpost route` warns too
from gpu_core.backend import BACKENDS
from gpu_core.sssp import STRATEGIES, SSSPOptions
from maps.errors import MapError
from maps.load import PROFILES
from maps.model.weights import seconds_of
from maps.points.resolve import parse_point
from resources import colormap_names

from .map_canvas import format_cost

WALK_MPS = 5000 / 3600  # only to give a length-profile route an indicative time


def plain_device(text: str) -> str:
    """A device line as a plain phrase for the status bar and panels ("CPU", "GPU:
    NVIDIA H100"); the reason in brackets ("CuPy is not installed (...)") goes to a
    tooltip instead (issue 27). Here beside the route panel, whose search line
    names the device at every search (issue 38: not a module more per click)."""
    return text.split(" (", 1)[0].strip() or text


# ---- what the route panel tells about its points besides the route: how far each click
# snapped (far from any road: `signpost route` warns too) and, when typed coordinates look
# like LAT,LON instead of LON,LAT, a hint. Here, beside the panel: every click sets its
# snapping line (issue 38).


def _fmt_m(d: float) -> str:
    return f"{d / 1000:.1f} km" if d >= 10_000 else f"{d:.0f} m"


def snap_text(src, dst) -> str:
    """'from 12 m, to 632 m (far from the road)' for two maps.points.resolve.ResolvedPoint (or
    None); node:ID points did not snap."""
    parts = []
    for name, p in (("from", src), ("to", dst)):
        if p is None:
            continue
        if p.snap is None:
            parts.append(f"{name}: node {p.node_id}")
            continue
        d = float(p.snap.distance_m)
        parts.append(f"{name}: {_fmt_m(d)}" + (" — far from any road" if d > FAR_SNAP_M else ""))
    return "; ".join(parts) or "—"


def swapped_hint(win, *texts: str) -> str:
    """' Did you mean LON,LAT = …?' when a typed LON,LAT point failed and the same numbers
    swapped land on the map's roads; '' otherwise."""
    if win.net is None or win.snapper is None:
        return ""
    for text in texts:
        try:
            p = parse_point(text.strip())
        except MapError:
            p = None
        if p is None or p.is_node or p.lon is None or p.lat is None:
            try:  # "60.17,24.93" may be refused as a latitude out of range: read it raw
                lon, lat = (float(v) for v in text.replace(";", ",").split(",")[:2])
            except ValueError:
                continue
        else:
            lon, lat = p.lon, p.lat
        if not (-90.0 <= lon <= 90.0 and -180.0 <= lat <= 180.0):
            continue
        try:
            win.snapper.snap_lonlat(lat, lon, max_distance_m=win.snap_max_m)
        except (MapError, ValueError):
            continue
        return (f" — the point {text.strip()!r} looks like LAT,LON: points are LON,LAT; "
                f"did you mean {lat},{lon}?")
    return ""


def format_duration(s: float) -> str:
    if s >= 3600:
        return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"
    if s >= 60:
        return f"{int(s // 60)} min {int(s % 60):02d} s"
    return f"{s:.0f} s"


def button_row(owner: QWidget, *buttons: tuple[str, str, object]) -> QHBoxLayout:
    """One row of push buttons, each (attribute of ``owner``, text, slot or signal to
    call on click)."""
    row = QHBoxLayout()
    for attr, text, slot in buttons:
        b = QPushButton(text)
        b.clicked.connect(slot)
        setattr(owner, attr, b)
        row.addWidget(b)
    return row


def form_panel(owner: QWidget, title: str, rows: list) -> QVBoxLayout:
    """``owner``'s layout: a group box ``title`` holding a form of ``rows`` (each a
    (label, widget) pair, a widget or a layout); add what goes below it to the result."""
    form = QFormLayout()
    for row in rows:
        if isinstance(row, tuple):
            form.addRow(*row)
        else:
            form.addRow(row)
    box = QGroupBox(title)
    box.setLayout(form)
    lay = QVBoxLayout(owner)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(box)
    return lay


class RoutePanel(QWidget):
    """From/to fields, swap/clear/copy, and cost, length, time and node count."""

    pointsEdited = Signal(str, str)  # from text, to text (Enter in either field)
    swapRequested = Signal()
    clearRequested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.ed_from = QLineEdit()
        self.ed_from.setPlaceholderText("click the map, or LON,LAT / node:ID")
        self.ed_to = QLineEdit()
        self.ed_to.setPlaceholderText("right-click the map, or LON,LAT / node:ID")
        for ed in (self.ed_from, self.ed_to):
            ed.returnPressed.connect(lambda: self.pointsEdited.emit(self.ed_from.text(), self.ed_to.text()))
        self.lbl = {k: QLabel("—") for k in ("cost", "length", "time", "nodes", "reached", "search",
                                              "snap", "part")}
        for lbl in self.lbl.values():
            lbl.setWordWrap(True)
        form = QFormLayout()
        form.addRow("From", self.ed_from)
        form.addRow("To", self.ed_to)
        form.addRow(button_row(self, ("btn_swap", "Swap", self.swapRequested),
                               ("btn_clear", "Clear", self.clearRequested),
                               ("btn_copy", "Copy coordinates", self.copy_coordinates)))
        form.addRow("Cost", self.lbl["cost"])
        form.addRow("Length", self.lbl["length"])
        form.addRow("Travel time", self.lbl["time"])
        form.addRow("Route nodes", self.lbl["nodes"])
        form.addRow("Reached", self.lbl["reached"])
        form.addRow("Search", self.lbl["search"])
        form.addRow("Snapped", self.lbl["snap"])
        form.addRow("Network part", self.lbl["part"])
        box = QGroupBox("Route")
        box.setLayout(form)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(box)

    def set_points(self, src: str | None, dst: str | None) -> None:
        if src is not None:
            self.ed_from.setText(src)
        if dst is not None:
            self.ed_to.setText(dst)

    def show_snapping(self, snap: str, part: str) -> None:
        """How far the points snapped, and the part of the network each is on."""
        self.lbl["snap"].setText(snap)
        self.lbl["part"].setText(part)

    def show_route(self, cost: int | None, unit: str = "", length_m: float | None = 0.0,
                   nodes: int = 0, message: str = "") -> None:
        """``length_m`` None: the map has no coordinates, so no length can be given."""
        if cost is None:
            self.lbl["cost"].setText(message or "—")
            for k in ("length", "time", "nodes"):
                self.lbl[k].setText("—")
            return
        self.lbl["cost"].setText(f"{cost:,} {unit} ({format_cost(cost, unit)})")
        if length_m is None:
            self.lbl["length"].setText("— (the map has no coordinates)")
        else:
            self.lbl["length"].setText(f"{length_m / 1000:.3f} km" if length_m >= 1000 else f"{length_m:.1f} m")
        seconds = seconds_of(unit, cost)
        if seconds is not None:
            self.lbl["time"].setText(format_duration(seconds))
        elif unit == "dm" and length_m is not None:  # a length profile: only an indicative walking time
            self.lbl["time"].setText(f"≈ {format_duration(length_m / WALK_MPS)} walking (5 km/h)")
        else:  # the file's own weights: no time can be read from them
            self.lbl["time"].setText("— (weights in the file's own unit)")
        self.lbl["nodes"].setText(f"{nodes:,}")

    def show_search(self, reached: int, total: int, text: str) -> None:
        self.lbl["reached"].setText(f"{reached:,} of {total:,} nodes")
        self.lbl["search"].setText(text)

    def clear(self) -> None:
        self.ed_from.clear()
        self.ed_to.clear()
        for lbl in self.lbl.values():
            lbl.setText("—")

    def copy_coordinates(self) -> None:
        QGuiApplication.clipboard().setText(f"{self.ed_from.text()}\n{self.ed_to.text()}")


class AlgorithmPanel(QWidget):
    """Strategy, backend, adaptive thresholds, profile and distance-field display."""

    changed = Signal()  # search settings changed: the next search uses them
    displayChanged = Signal()  # colour map / bands / field toggle: redraw only
    profileChanged = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.cb_strategy = QComboBox()
        self.cb_strategy.addItems(list(STRATEGIES))
        self.cb_backend = QComboBox()
        self.cb_backend.addItems(list(BACKENDS))
        d = SSSPOptions()
        self.sp_up = QDoubleSpinBox()
        self.sp_down = QDoubleSpinBox()
        for sp, v in ((self.sp_up, d.switch_up_us), (self.sp_down, d.switch_down_us)):
            sp.setRange(0, 1e7)
            sp.setDecimals(0)
            sp.setSuffix(" µs")
            sp.setValue(v)
        self.cb_signal = QComboBox()
        self.cb_signal.addItems(["time", "frontier"])
        self.cb_profile = QComboBox()
        self.cb_profile.addItems(list(PROFILES))
        self.cb_cmap = QComboBox()
        self.cb_cmap.addItems(colormap_names())
        self.sp_bands = QSpinBox()
        self.sp_bands.setRange(0, 30)
        self.sp_bands.setSpecialValueText("continuous")
        self.sp_bands.setToolTip("Isochrone bands: about this many round-valued steps (0: continuous colours)")
        self.chk_field = QCheckBox("Colour the network by distance")
        self.chk_field.setChecked(True)
        self.chk_polys = QCheckBox("Isochrone polygons (at the band edges)")
        self.chk_polys.setToolTip("Filled areas reachable within each band's cost "
                                  "(needs isochrone bands; export: File > Export)")

        form = QFormLayout()
        form.addRow("Strategy", self.cb_strategy)
        form.addRow("Backend", self.cb_backend)
        form.addRow("Switch up (adaptive)", self.sp_up)
        form.addRow("Switch down (adaptive)", self.sp_down)
        form.addRow("Adaptive signal", self.cb_signal)
        form.addRow("Profile", self.cb_profile)
        box = QGroupBox("Algorithm")
        box.setLayout(form)
        form2 = QFormLayout()
        form2.addRow(self.chk_field)
        form2.addRow("Colour map", self.cb_cmap)
        form2.addRow("Isochrone bands", self.sp_bands)
        form2.addRow(self.chk_polys)
        box2 = QGroupBox("Distance field")
        box2.setLayout(form2)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(box)
        lay.addWidget(box2)
        lay.addStretch(1)

        for w in (self.cb_strategy, self.cb_backend, self.cb_signal):
            w.currentTextChanged.connect(lambda *_: self.changed.emit())
        for sp in (self.sp_up, self.sp_down):
            sp.valueChanged.connect(lambda *_: self.changed.emit())
        self.cb_profile.currentTextChanged.connect(self.profileChanged)
        self.cb_cmap.currentTextChanged.connect(lambda *_: self.displayChanged.emit())
        self.sp_bands.valueChanged.connect(lambda *_: self.displayChanged.emit())
        self.chk_field.toggled.connect(lambda *_: self.displayChanged.emit())
        self.chk_polys.toggled.connect(lambda *_: self.displayChanged.emit())
        self._options: SSSPOptions | None = None  # built once per change, not per search
        self.changed.connect(self._forget_options)

    def _forget_options(self) -> None:
        self._options = None

    # ---- values -----------------------------------------------------------------------
    @property
    def strategy(self) -> str:
        return self.cb_strategy.currentText()

    @property
    def backend(self) -> str:
        return self.cb_backend.currentText()

    @property
    def profile(self) -> str:
        return self.cb_profile.currentText()

    def options(self) -> SSSPOptions:
        """The search options the panel shows (made again after a change)."""
        if self._options is None:
            self._options = SSSPOptions(
                switch_up_us=float(self.sp_up.value()),
                switch_down_us=float(self.sp_down.value()),
                adaptive_signal=self.cb_signal.currentText(),
            )
        return self._options

    def values(self) -> dict:
        return {
            "strategy": self.strategy,
            "backend": self.backend,
            "profile": self.profile,
            "switch_up_us": float(self.sp_up.value()),
            "switch_down_us": float(self.sp_down.value()),
            "adaptive_signal": self.cb_signal.currentText(),
            "colormap": self.cb_cmap.currentText(),
            "isochrone_bands": int(self.sp_bands.value()),
            "show_field": bool(self.chk_field.isChecked()),
            "isochrone_polygons": bool(self.chk_polys.isChecked()),
        }

    def set_values(self, v: dict) -> None:
        def pick(cb: QComboBox, text) -> None:
            i = cb.findText(str(text))
            if i >= 0:
                cb.setCurrentIndex(i)

        pick(self.cb_strategy, v.get("strategy", "auto"))
        pick(self.cb_backend, v.get("backend", "auto"))
        pick(self.cb_profile, v.get("profile", "length"))
        pick(self.cb_signal, v.get("adaptive_signal", "time"))
        pick(self.cb_cmap, v.get("colormap", "turbo"))
        self.sp_up.setValue(float(v.get("switch_up_us", 350.0)))
        self.sp_down.setValue(float(v.get("switch_down_us", 330.0)))
        self.sp_bands.setValue(int(v.get("isochrone_bands", 0)))
        show = v.get("show_field", True)
        self.chk_field.setChecked(show in (True, "true", 1, "1"))
        self.chk_polys.setChecked(v.get("isochrone_polygons", False) in (True, "true", 1, "1"))
