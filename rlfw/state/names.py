"""A checkpoint's layout version, the names of a run's checkpoint files and finding one: what finding
and checking a checkpoint need, in a module that imports neither torch nor Lightning."""

from __future__ import annotations

from pathlib import Path

from rlfw.errors import ConfigError

# the checkpoint layout's version: a file from another layout is refused by name. 2: masks ride with the
# observation, which rows act is a field, the stream's state replaces the collector's league
FORMAT = 2
LAST, BEST = "last.ckpt", "best.ckpt"  # in a run's checkpoints/
WHICH = {"best": BEST, "last": LAST}  # rlfw.load(run, which=...)


def checkpoint_file(path: str | Path, which: str = "best") -> Path:
    """The checkpoint ``path`` names: a ``.ckpt`` file, or a run folder's ``checkpoints/<which>.ckpt``."""
    if which not in WHICH:
        raise ConfigError(f"which={which!r}: one of {', '.join(WHICH)}")
    path = Path(path).expanduser()
    if path.is_file():
        return path
    if not path.is_dir():
        raise ConfigError(f"{path} is neither a run folder nor a checkpoint file")
    file = path / "checkpoints" / WHICH[which]
    if not file.is_file():
        held = sorted(p.name for p in (path / "checkpoints").glob("*.ckpt"))
        has = f"it holds {', '.join(held)}" if held else "it holds no checkpoint (checkpoints/*.ckpt)"
        raise ConfigError(f"{path} has no checkpoints/{WHICH[which]}; {has}")
    return file
