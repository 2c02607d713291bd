"""``resume=auto`` and ``resume=<file.ckpt>``: find the checkpoint, load it safely, check it is this run.

``resume=auto`` is one command for every start of a run, as a cluster's requeue needs: it continues
the run folder's last checkpoint, returns the recorded result of a run that has finished (the
checkpoint is its end and the config asks for no more), and starts the run when there is no
checkpoint yet. All of it runs before training, so a missing, corrupt or foreign file, or a config
that would make a different run, ends in one line and nothing in the run folder changes.
"""

from __future__ import annotations

import csv
import json
import pickle
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlfw.errors import ConfigError
from rlfw.state.names import FORMAT, LAST

# Keys a resumed run may change: how long it runs, how it evaluates, logs and checkpoints, its threads
# and whether it compiles (the same math, as a change of accelerator is).
# Any other difference (algo, env, network sizes, seed, ...) would make a different run.
MAY_CHANGE = (
    "total_env_steps",
    "total_updates",
    "stop_when_solved",
    "objective",
    "eval",
    "log_every",
    "progress_every_s",
    "checkpoint",
    "compile",
    "threads",
    "logger",
    "resume",
    "on_nonfinite",
    "pause_at",
    "schedule",  # from the checkpoint's step on (``rlfw.config.schedule.check_resumed``)
)
MAY_CHANGE_TRAINER = ("accelerator", "profiler", "detect_anomaly")


def checkpoint_path(resume: str, run_dir: Path) -> Path | None:
    """The checkpoint to go on from; None for ``resume=auto`` in a folder without one (a new run)."""
    if resume != "auto":
        path = Path(resume).expanduser()
        if not path.is_file():
            raise ConfigError(f"resume={resume!r}: no such file (resume=auto continues the run in hydra.run.dir)")
        return path
    path = run_dir / "checkpoints" / LAST
    return path if path.is_file() else None


def _require_zip(path: Path, what: str, who: str) -> None:
    """torch.save writes a zip whose directory is at its end: a truncated or garbled file has none (a cheap read)."""
    if not zipfile.is_zipfile(path):
        raise ConfigError(
            f"{who}: {path} is not a readable {what} (truncated or corrupt?): not the zip archive torch.save writes"
        )


def _read(path: Path, what: str, who: str) -> Any:
    import torch  # here, not above: a config that never resumes is checked without torch's import

    _require_zip(path, what, who)
    unreadable = f"{who}: {path} is not a readable {what}"
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as err:  # weights_only's refusal; torch's own message tells how to run the code
        raise ConfigError(
            f"{unreadable}: it holds pickled Python objects, not only tensors and plain containers, and rlfw runs no code from a file"
        ) from err
    except (RuntimeError, zipfile.BadZipFile, EOFError, OSError, ValueError) as err:
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ConfigError(f"{unreadable} (truncated or corrupt?): {reason}") from err


def read_checkpoint(path: Path, who: str = "resume") -> dict[str, Any]:
    """The checkpoint at ``path``, loaded with ``weights_only=True`` (tensors and plain containers
    only), in the layout this rlfw reads; ``who`` starts the error line (``resume``, ``rlfw.load``)."""
    state = _read(path, "checkpoint", who)
    if not isinstance(state, dict) or "rlfw_checkpoint" not in state:
        raise ConfigError(f"{who}: {path} is not an rlfw checkpoint (it has no rlfw_checkpoint key)")
    if state["rlfw_checkpoint"] != FORMAT:
        raise ConfigError(
            f"{who}: {path} has checkpoint format {state['rlfw_checkpoint']}; this rlfw reads format {FORMAT}"
        )
    return state


def load(path: Path) -> dict[str, Any]:
    """The checkpoint at ``path``, checked to hold what a resume needs (its replay file beside it)."""
    state = read_checkpoint(path)
    if state["replay_file"] is None:
        raise ConfigError(
            f"resume: {path} holds no replay contents (best.ckpt and nonfinite.ckpt keep the networks and"
            " counters only, and a replay plugin without state_dict saves none); resume from checkpoints/last.ckpt"
        )
    for name, what in [
        (state["replay_file"], "replay file"),
        *((n, "rank's file") for n in state.get("rank_files", [])),
    ]:
        beside = path.parent / name
        if not beside.is_file():
            raise ConfigError(f"resume: {path} needs its {what} {beside}, which is missing")
        _require_zip(beside, what, "resume")
    return state


def intact_older(path: Path) -> Path | None:
    """The newest numbered checkpoint beside ``path``, other than ``path`` itself, that loads whole."""
    for older in sorted(
        path.parent.glob("*=*.ckpt"), reverse=True
    ):  # env_steps= or updates=, zero-padded: newest first
        if older.samefile(path):  # last.ckpt is a hard link to the newest
            continue
        try:
            load(older)
        except ConfigError:
            continue
        return older
    return None


def load_or_point_back(path: Path) -> dict[str, Any]:
    """``load(path)``; a refusal names the newest older checkpoint that is intact, when there is one."""
    try:
        return load(path)
    except ConfigError as err:
        older = intact_older(path)
        if older is None:
            raise
        # quoted for the shell and for Hydra, whose override grammar reads the = in env_steps=... otherwise
        raise ConfigError(f"{err}; {older} is intact: resume from it with \"resume='{older}'\"") from err


def load_replay(path: Path, state: dict[str, Any]) -> dict[str, Any]:
    """The replay contents saved beside the checkpoint at ``path`` (large: read when training starts)."""
    return _read(path.parent / state["replay_file"], "replay file", "resume")


def for_rank(path: Path, state: dict[str, Any], rank: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run state and replay contents rank ``rank`` of a ddp run goes on from: the checkpoint's, with
    what differs between ranks (envs, explore, random generators, replay) from the rank's own file."""
    if rank == 0:
        return state, load_replay(path, state)
    own = _read(path.parent / state["rank_files"][rank - 1], "rank's file", "resume")
    replay = own.pop("replay")
    return {**state, **own}, replay


def differences(saved: dict[str, Any], now: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two configs, outside ``MAY_CHANGE``."""
    keys = []
    for key in sorted(set(saved) | set(now)):
        dotted = f"{prefix}{key}"
        if (not prefix and key in MAY_CHANGE) or (prefix == "trainer." and key in MAY_CHANGE_TRAINER):
            continue
        a, b = saved.get(key), now.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            keys += differences(a, b, f"{dotted}.")
        elif a != b:
            keys.append(f"{dotted} ({a!r} in the checkpoint, {b!r} now)")
    return keys


def check_same_run(path: Path, state: dict[str, Any], cfg: dict[str, Any]) -> None:
    changed = differences(state["config"], cfg)
    if changed:
        raise ConfigError(
            f"resume: {path} is a different run; these overrides change it: {'; '.join(changed)}."
            f" A resumed run may change only {', '.join(MAY_CHANGE)} and trainer.{{{','.join(MAY_CHANGE_TRAINER)}}}"
        )


def _metric_rows(path: Path) -> list[list[str]]:
    if not path.is_file():
        return []
    with open(path, newline="") as file:
        return list(csv.reader(file))


def finished(run_dir: Path, state: dict[str, Any], cfg: dict[str, Any]) -> dict[str, Any] | None:
    """The run's ``summary.json`` when the run ended at this checkpoint and ``cfg`` asks for no more
    training (no more env steps; or solved, with ``stop_when_solved``); None otherwise. An unreadable
    summary counts as none: the resumed run ends again and writes it anew."""
    try:
        summary = json.loads((run_dir / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    unit, total = (
        ("updates", cfg["total_updates"]) if cfg.get("total_updates") else ("env_steps", cfg["total_env_steps"])
    )
    if not isinstance(summary, dict) or summary.get(unit) != state["run"][unit]:
        return None
    more = total > summary[unit] and not (cfg["stop_when_solved"] and summary.get("solved"))
    return None if more else summary


@dataclass
class Resume:
    path: Path  # the checkpoint
    state: dict[str, Any]  # its contents (the replay's are read when training starts)
    metrics: Path  # the metrics.csv its run wrote (in the run folder above checkpoints/)
    summary: dict[str, Any] | None = None  # the run finished here: its recorded result, nothing to train


def prepare_resume(resume: str, run_dir: Path, cfg: dict[str, Any]) -> Resume | None:
    """Every check before a resumed run starts: the file, its format, its config, its metric rows.
    None when ``resume=auto`` finds no checkpoint: the run starts from the beginning."""
    path = checkpoint_path(resume, run_dir)
    if path is None:
        return None
    state = load_or_point_back(path)
    check_same_run(path, state, cfg)
    metrics, rows = path.parent.parent / "metrics.csv", state["run"]["metric_rows"]
    if rows and len(_metric_rows(metrics)) - 1 < rows:
        raise ConfigError(f"resume: {path} counts {rows} metric rows, but {metrics} is missing or shorter")
    return Resume(path, state, metrics, finished(run_dir, state, cfg))


def keep_metric_rows(resume: Resume, target: Path) -> None:
    """``target`` (the resumed run's ``metrics.csv``) becomes the first rows of the checkpoint's run,
    as many as it had logged: rows logged after the checkpoint are logged again by the resumed run."""
    rows = resume.state["run"]["metric_rows"]
    lines = _metric_rows(resume.metrics)[: rows + 1] if rows else []
    if not lines:  # no row yet: the CSV logger starts the file with its header
        target.unlink(missing_ok=True)
        return
    partial = target.with_name(target.name + ".partial")
    with open(partial, "w", newline="") as file:
        csv.writer(file).writerows(lines)
    partial.replace(target)
