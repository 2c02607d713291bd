"""Refuse what cannot fit in memory before allocating it, with the figure."""

from __future__ import annotations

from pathlib import Path

from rlfw.errors import require


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


def require_memory(nbytes: int, key: str, value, what: str) -> None:
    """``key=value: <what> needs N GiB, M GiB available`` when ``nbytes`` would not fit."""
    free = available_bytes()
    require(free is None or nbytes <= free, key, value, f"{what} needs {gib(nbytes)}, {gib(free or 0)} available")
