"""The command that goes on from where a stopped run or sweep left off: the line a stop ends with.

With ``resume=auto`` the same command starts a run, continues it from its last checkpoint, or returns
its recorded result when it has finished; for a sweep, each job does so in its own folder."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

goes_on: str | None = None  # this process's run or sweep, once its folder is known (rlfw.config.preflight)


def command(args: Sequence[str], key: str, folder: Path) -> str:
    """``python -m rlfw <args> resume=auto <key>=<folder>``, any earlier ``resume`` and ``key`` dropped."""
    keep = [a for a in args if not a.startswith(("resume=", f"{key}="))]
    return shlex.join([Path(sys.executable).name, "-m", "rlfw", *keep, "resume=auto", f"{key}={folder}"])
