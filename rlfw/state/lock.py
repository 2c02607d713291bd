"""A run or sweep folder is owned by one process at a time.

The owner holds an advisory lock (``flock``) on ``<folder>/.lock``, which also records who it is; the
operating system frees the lock when the owner exits, however it ends (SIGKILL included), so a stale
file never blocks a restart. A second process refuses the folder in one line naming the owner,
before it writes anything there: two runs appending to one ``metrics.csv`` would corrupt it.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rlfw.errors import ConfigError

NAME = ".lock"
_held: dict[Path, int] = {}  # folder -> the open lock file's descriptor, for this process's folders


def own(folder: Path, key: str) -> bool:
    """Lock ``folder`` (created if missing) for this process until ``release`` or exit. True if this
    call took the lock, False if this process held it already; ``ConfigError`` naming the owner if
    another process holds it (``key``, e.g. ``hydra.run.dir``, starts the line)."""
    folder = folder.resolve()
    if folder in _held or not first_process():
        return False
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        owner = os.read(fd, 4096).decode(errors="replace").strip() or "another process"
        os.close(fd)
        raise ConfigError(
            f"{key}={folder} is in use by {owner}; wait for it to end (or stop it), or use another folder"
        ) from None
    os.ftruncate(fd, 0)
    script = Path(sys.argv[0])
    program = f"python -m {script.parent.name}" if script.name == "__main__.py" else script.name
    command = " ".join([program, *sys.argv[1:]])[:300]
    os.write(fd, f"process {os.getpid()} on {socket.gethostname()} since {time.strftime('%F %T')} ({command})".encode())
    _held[folder] = fd
    return True


def first_process() -> bool:
    """False in the other processes of a multi-process run (Lightning's DDP ranks, torchrun's, Slurm's
    tasks): they share the folder its first process owns."""
    return all(os.environ.get(rank, "0") == "0" for rank in ("LOCAL_RANK", "NODE_RANK", "RANK", "SLURM_PROCID"))


def release(folder: Path) -> None:
    """Free the lock this process holds on ``folder`` (the file stays: it is only a name to lock)."""
    fd = _held.pop(folder.resolve(), None)
    if fd is not None:
        os.close(fd)  # closing the descriptor frees its flock


@contextmanager
def owned(folder: Path, key: str) -> Iterator[None]:
    """The folder locked for the block; freed after, unless this process held it before the block."""
    took = own(folder, key)
    try:
        yield
    finally:
        if took:
            release(folder)
