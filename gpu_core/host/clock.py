"""A cheap clock readable inside numba-compiled loops (the CPU's cycle counter).

numba has no clock in nopython mode, and calling ``time.perf_counter`` per phase from a
Python loop costs more than many phases do. ``cycles()`` compiles to LLVM's
``readcyclecounter`` (``rdtsc`` on x86-64, an invariant constant-rate counter on every
CPU of the last decade), which costs a few nanoseconds and keeps ``cache=True`` working
(no ctypes pointers baked into the code). ``cycles_per_us()`` calibrates it once against
``perf_counter``; it returns 0.0 where the counter is not used (not x86-64), and callers
then fall back to batch times measured in Python.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# Only x86-64 is known to give user code a constant-rate counter through this intrinsic;
# elsewhere (e.g. AArch64, where it reads PMCCNTR_EL0 and may trap) it compiles to 0.
_HAVE_TSC = platform.machine().lower() in ("x86_64", "amd64")


def _readcyclecounter_typing(typingctx):
    sig = types.int64()

    def codegen(context, builder, signature, args):
        if not _HAVE_TSC:
            return ir.Constant(ir.IntType(64), 0)
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


# numba's stubs give an intrinsic the call signature of its typing function (typingctx
# first); compiled code calls it with no argument and gets an int64
_readcyclecounter: Callable[[], int] = intrinsic(_readcyclecounter_typing)  # type: ignore[assignment]

@njit(cache=True)
def cycles() -> int:
    """The cycle counter now (an int64; only differences are meaningful)."""
    return _readcyclecounter()


_CAL: list[float] = []


def cycles_per_us() -> float:
    """Counter ticks per microsecond (calibrated once, ~5 ms); 0.0 when unusable."""
    if _CAL:
        return _CAL[0]
    cycles()  # compile/load before timing
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        c0 = cycles()
        while time.perf_counter() - t0 < 0.002:
            pass
        c1 = cycles()
        t1 = time.perf_counter()
        rate = (c1 - c0) / ((t1 - t0) * 1e6)
        best = max(best, rate)
    _CAL.append(best if best > 1.0 else 0.0)
    return _CAL[0]
