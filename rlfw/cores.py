"""The cores this process may run on: its CPU affinity (a Slurm allocation, ``taskset``), which can be
fewer than the machine has; ``threads: null`` and the joblib split count these."""

from __future__ import annotations

import os


def cores() -> int:
    if hasattr(os, "sched_getaffinity"):  # Linux
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
