"""The members' run folders, ``<sweep>/member_<slot>``: what a generation logged, and the copy of a
top member's checkpoint that a bottom member goes on from.

A copy is made in two steps that a stop at any moment leaves recoverable (``Population.phase``): every
copy is built beside the sweep first (``.exploit/member_<slot>``, hard links to the source's checkpoint
files, never written in place, and its metrics.csv), then each is swapped in by two renames.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path
from typing import Any

from rlfw.state.names import LAST

STAGING = ".exploit"


def member_dir(sweep: Path, slot: int) -> Path:
    return sweep / f"member_{slot}"


def logged(run_dir: Path, metric: str, after: int) -> tuple[float | None, list[tuple[int, float]]]:
    """The metric's last value in ``run_dir``'s metrics.csv and the greedy evaluations (step, mean
    return) logged after env step ``after``; None when the column holds no value."""
    last, evals = None, []
    path = run_dir / "metrics.csv"
    if not path.is_file():
        return None, []
    with open(path, newline="") as file:
        for row in csv.DictReader(file):
            if row.get(metric):
                last = float(row[metric])
            if row.get("eval/return_mean") and int(row["step"]) > after:
                evals.append((int(row["step"]), float(row["eval/return_mean"])))
    return last, evals


def paused_at(run_dir: Path) -> int | None:
    """The env steps (updates) the member's run ended or paused at, from its summary.json."""
    try:
        summary = json.loads((run_dir / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    return summary.get("updates") if summary.get("total_updates") else summary.get("env_steps")


def stage_copy(sweep: Path, source: int, target: int) -> None:
    """``.exploit/member_<target>``: the source's newest checkpoint (its replay beside it) and metrics.csv."""
    staged = sweep / STAGING / f"member_{target}"
    shutil.rmtree(staged, ignore_errors=True)
    (staged / "checkpoints").mkdir(parents=True)
    origin = member_dir(sweep, source)
    last = origin / "checkpoints" / LAST
    numbered = next(p for p in last.parent.glob("*=*.ckpt") if p.samefile(last))  # last.ckpt links the newest
    for path in (numbered, numbered.with_suffix(".replay")):
        _link(path, staged / "checkpoints" / path.name)
    _link(numbered, staged / "checkpoints" / LAST)
    shutil.copyfile(origin / "metrics.csv", staged / "metrics.csv")


def swap_in(sweep: Path, target: int) -> None:
    """The staged copy becomes ``member_<target>``; the folder it replaces is removed. Idempotent: a
    copy swapped in already (nothing staged) is left as it is."""
    staged, folder = sweep / STAGING / f"member_{target}", member_dir(sweep, target)
    if not staged.is_dir():
        return
    old = sweep / STAGING / f"member_{target}.old"
    if folder.is_dir():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(folder, old)
    os.replace(staged, folder)
    shutil.rmtree(old, ignore_errors=True)


def clear_staging(sweep: Path) -> None:
    shutil.rmtree(sweep / STAGING, ignore_errors=True)


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:  # a file system without hard links
        shutil.copyfile(source, target)


def disk_use(sweep: Path) -> int:
    """Bytes under ``sweep`` (a hard-linked file counted once)."""
    seen: set[Any] = set()
    total = 0
    for path in sweep.rglob("*"):
        if path.is_file():
            stat = path.stat()
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_size
    return total
