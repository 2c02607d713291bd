"""What this machine gives a run: the cores this process may use and the memory still available.

Components check their sizes against these before allocating (a replay, a network), and the run
sizes its threads from them, so a job never oversubscribes a Slurm allocation or ``taskset``."""

from __future__ import annotations

import os
from pathlib import Path

from rlfw.errors import require


def cores() -> int:
    """The cores this process may run on: its CPU affinity, which can be fewer than the machine has."""
    if hasattr(os, "sched_getaffinity"):  # Linux
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def native_bf16() -> str | None:
    """The CPU's bf16 instructions (``amx_bf16``, ``avx512_bf16``), or None where it has neither or
    Linux's /proc/cpuinfo cannot say. oneDNN accepts bf16 on any AVX-512 CPU, but without these it
    emulates the bf16 arithmetic (not measured on this project's machines: they all had one)."""
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return None
    found = [f for f in ("amx_bf16", "avx512_bf16") if f in flags.split()]
    return ", ".join(found) or None


def available_bytes() -> int | None:
    """The kernel's estimate of memory available to a new allocation (None where unknown)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.1f} GiB"


def require_memory(nbytes: int, key: str, value: object, what: str) -> None:
    """``key=value: <what> needs N GiB, M GiB available`` when ``nbytes`` would not fit."""
    free = available_bytes()
    require(free is None or nbytes <= free, key, value, f"{what} needs {gib(nbytes)}, {gib(free or 0)} available")
