"""A clock the compiled kernel can read: the processor's cycle counter (x86's time-stamp
counter, through LLVM's `readcyclecounter`), turned into seconds by a rate measured once.

numba offers no clock in compiled code, and a search that cannot read one can only guess how many
nodes or deals fit in its time: on a machine whose load changes, a guess made from the last search
overshoots. With the counter, the kernel's endgame search reads the time every 64 nodes, as the
Python one does, and a race stops after the deal that reaches its deadline. Only where the counter
runs at a constant rate (x86-64 with `constant_tsc`) is it read; elsewhere `deadline_in_cycles`
answers -1 and the kernel keeps to its node and deal budgets alone.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from engine.kernel.jit import compiled

NO_DEADLINE = -1


@intrinsic
def _read_counter(typingctx: object) -> tuple:
    def codegen(context: object, builder: ir.IRBuilder, signature: object, args: object
                ) -> ir.Value:
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.int64(), codegen


@compiled
def cycles() -> int:
    """The cycle counter now (only where `steady()`: elsewhere the instruction may trap)."""
    return _read_counter()  # type: ignore[call-arg]   # numba passes the typing context


@compiled
def past(deadline: int) -> bool:
    """Whether the counter is past `deadline` (NO_DEADLINE: never)."""
    return deadline != NO_DEADLINE and _read_counter() > deadline  # type: ignore[call-arg]


def steady() -> bool:
    """Whether this machine's cycle counter is one the kernel may read: x86-64 with a
    constant-rate time-stamp counter."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        return "constant_tsc" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


_rate: list[float] = []   # counter ticks a second, once measured


def measure(seconds: float = 0.05) -> None:
    """Measure the counter's rate against the system's clock (kernel warm-up)."""
    if not steady():
        return
    cycles()   # the first call loads the compiled function: not inside the measurement
    counted = cycles()
    start = time.perf_counter()
    time.sleep(seconds)
    ended = time.perf_counter()
    _rate[:] = [(cycles() - counted) / (ended - start)]


def deadline_in_cycles(deadline: float) -> int:
    """`deadline` (a time.perf_counter() value) as a counter value, or NO_DEADLINE where the
    counter is not read."""
    if not _rate:
        return NO_DEADLINE
    return int(cycles() + max(0.0, deadline - time.perf_counter()) * _rate[0])
