"""``gpu_core.device.compile_ahead`` (issue 41) without a GPU: a stand-in CuPy records what
is compiled, on which thread and device. The module is compiled once, on the thread; a
first use while it compiles waits for it rather than compiling it a second time; every
.cu file of the core names a kernel the thread can ask for (CuPy compiles a module at its
first ``get_function``)."""

from __future__ import annotations

import sys
import threading
import types
from pathlib import Path

import pytest

from gpu_core.device import kernels

ROOT = Path(__file__).resolve().parents[2]


class _Module:
    made: list = []
    release = threading.Event()

    def __init__(self, code, options, enable_cooperative_groups):
        self.code, self.compiled, self.asked = code, 0, []
        _Module.made.append(self)

    def get_function(self, name):
        if not self.compiled:
            _Module.release.wait(10)  # NVRTC at work
            self.compiled += 1
        self.asked.append((name, threading.current_thread().name, _Device.current))
        return (self, name)


class _Device:
    current = 0

    def __init__(self, i=None):
        self.i = i

    def __enter__(self):
        self.prev, _Device.current = _Device.current, self.i
        return self

    def __exit__(self, *exc):
        _Device.current = self.prev


@pytest.fixture
def fake_cupy(monkeypatch):
    cp = types.ModuleType("cupy")
    cp.RawModule = _Module
    cp.cuda = types.SimpleNamespace(
        Device=_Device, runtime=types.SimpleNamespace(getDevice=lambda: 3))
    monkeypatch.setitem(sys.modules, "cupy", cp)
    monkeypatch.setattr(kernels, "_modules", {})
    monkeypatch.setattr(kernels, "_functions", {})
    monkeypatch.setattr(kernels, "_ahead", {})
    _Module.made = []
    _Module.release = threading.Event()
    return cp


def test_compiled_once_on_a_thread_and_a_first_use_waits_for_it(fake_cupy):
    cu = ROOT / "gpu_core" / "betweenness" / "betweenness.cu"
    th = kernels.compile_ahead(cu)
    assert th.name == "signpost-nvrtc-betweenness.cu" and th.is_alive()
    assert kernels.compile_ahead(cu) is th  # asked again while it runs: the same thread
    got = {}
    user = threading.Thread(target=lambda: got.setdefault(
        "fn", kernels.get_module(cu).get_function("we_sample")))
    user.start()
    user.join(0.2)
    assert user.is_alive()  # waiting for the thread's compilation
    _Module.release.set()
    user.join(10)
    th.join(10)
    assert len(_Module.made) == 1 and _Module.made[0].compiled == 1
    first, by, device = _Module.made[0].asked[0]
    assert by == th.name and device == 3  # on the caller's device
    assert got["fn"][1] == "we_sample" and kernels._ahead == {}


def test_a_failure_ahead_is_left_to_the_first_use(fake_cupy, monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("nvrtc: error")

    monkeypatch.setattr(fake_cupy, "RawModule", broken)
    th = kernels.compile_ahead(ROOT / "gpu_core" / "hierarchy" / "phast.cu")
    th.join(10)
    assert kernels._ahead == {}
    with pytest.raises(RuntimeError, match="nvrtc"):
        kernels.get_module(ROOT / "gpu_core" / "hierarchy" / "phast.cu")


@pytest.mark.parametrize("cu", sorted(p.relative_to(ROOT).as_posix()
                                      for p in (ROOT / "gpu_core").rglob("*.cu")))
def test_every_module_names_a_kernel_to_compile_it_by(cu):
    found = kernels._FIRST_KERNEL.search((ROOT / cu).read_text(encoding="utf-8"))
    assert found is not None, f"{cu}: no extern \"C\" __global__ kernel found"
