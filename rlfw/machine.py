"""What this machine gives a run: the cores this process may use and the memory still available.

Components check their sizes against these before allocating (a replay, a network), and the run
sizes its threads from them, so a job never oversubscribes a Slurm allocation or ``taskset``."""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

from rlfw.errors import require


def cores() -> int:
    """The cores this process may run on: its CPU affinity, which can be fewer than the machine has."""
    if hasattr(os, "sched_getaffinity"):  # Linux
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cpu_model() -> str:
    """The CPU's name as ``lscpu`` gives it (Linux's /proc/cpuinfo), for benchmarks' figures; "unknown"
    where it cannot say."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return "unknown"
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "unknown")


# The oneDNN ISAs (its "CPU Dispatcher Control" guide) that stop below each bf16 instruction set:
# ONEDNN_MAX_CPU_ISA (DNNL_MAX_CPU_ISA before oneDNN 2) capped there, torch's convolutions emulate it.
BELOW_AVX512_BF16 = {
    "SSE41",
    "AVX",
    "AVX2",
    "AVX2_VNNI",
    "AVX2_VNNI_2",
    "AVX512_MIC",
    "AVX512_MIC_4OPS",
    "AVX512_CORE",
    "AVX512_CORE_VNNI",
}
BELOW_AMX = BELOW_AVX512_BF16 | {"AVX512_CORE_BF16", "AVX512_CORE_FP16", "AVX10_1_512", "AVX10_2_512"}


def native_bf16() -> str | None:
    """The CPU's bf16 instructions (``amx_bf16``, ``avx512_bf16``) that oneDNN may use, or None where
    it has neither, an ``ONEDNN_MAX_CPU_ISA`` cap keeps oneDNN below them, or Linux's /proc/cpuinfo
    cannot say. Without them torch emulates bf16 arithmetic, several times slower than fp32
    (docs/results.md, "bf16 convolutions on the CPU")."""
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return None
    cap = (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "").upper()
    capped = {"amx_bf16": cap in BELOW_AMX, "avx512_bf16": cap in BELOW_AVX512_BF16}
    found = [f for f in ("amx_bf16", "avx512_bf16") if f in flags.split() and not capped[f]]
    return ", ".join(found) or None


# glibc's mallopt parameters (malloc.h): blocks up to MMAP_THRESHOLD come from the heap, and freed
# heap memory goes back to the kernel only past TRIM_THRESHOLD. 32 MiB is the most glibc takes on
# 64-bit; 1 GiB is over an update's working set (a PPO update on Pong frees tens of MB at once: with
# a threshold near that size, whether its pages go back to the kernel depends on the heap's layout).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
MMAP_THRESHOLD, TRIM_THRESHOLD = 32 << 20, 1 << 30
USER_MALLOC_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")


def keep_freed_memory() -> bool:
    """Has glibc's malloc keep freed memory for the next allocation; True when set.

    By default glibc maps large blocks fresh and unmaps them when freed, and gives a freed heap top
    back to the kernel past twice the largest block freed so far, so each update's batch,
    activations and gradients (tens of MB on pixels) would be faulted in page by page again (the
    figures: benchmarks/results/atari.md). A run's resident memory stays at its peak instead of
    shrinking after it.
    False where the C library is not glibc or the user set malloc's own variables."""
    if sys.platform != "linux" or any(k in os.environ for k in USER_MALLOC_SETTINGS):
        return False
    if "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    libc = ctypes.CDLL(None)  # the process's own C library
    if not hasattr(libc, "gnu_get_libc_version"):  # musl's mallopt does nothing
        return False
    return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


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
