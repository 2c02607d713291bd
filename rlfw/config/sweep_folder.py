"""A sweep rerun into its own folder: ``resume=auto`` finishes it; anything else is refused up front.

Hydra numbers a sweep's jobs the same way each time, so each job of the rerun finds its own folder
(``<num>_<what varies>``), where ``resume=auto`` returns its recorded result if it finished, continues
it from its checkpoint, or starts it. Before any job starts, the sweep's definition as Hydra saved it
(``multirun.yaml``) is compared with the rerun's: only the keys a resumed run may change may differ.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from hydra_plugins.rlfw_optuna import STUDY, RlfwOptunaSweeper
from hydra_plugins.rlfw_pbt import RlfwPBTSweeper
from rlfw.errors import ConfigError
from rlfw.state.resume import MAY_CHANGE, MAY_CHANGE_TRAINER

SAVED = "multirun.yaml"
BASIC_SWEEPER = "hydra._internal.core_plugins.basic_sweeper.BasicSweeper"
STUDY_SWEEPER = f"{RlfwOptunaSweeper.__module__}.{RlfwOptunaSweeper.__name__}"  # its study in the folder
PBT_SWEEPER = f"{RlfwPBTSweeper.__module__}.{RlfwPBTSweeper.__name__}"  # its population in the folder (pbt.json)


def check_sweep_folder(config: DictConfig) -> None:
    sweep = Path(config.hydra.sweep.dir)
    resume = config.get("resume")
    if resume not in (None, "auto"):
        raise ConfigError(
            f"resume={resume}: in a sweep each job resumes from its own folder; finish a sweep with resume=auto"
            " and hydra.sweep.dir=<its folder>"
        )
    saved = sweep / SAVED
    if not holds_sweep(sweep):
        return
    sweeper = str(config.hydra.sweeper.get("_target_"))
    if sweeper not in (BASIC_SWEEPER, STUDY_SWEEPER, PBT_SWEEPER):
        raise ConfigError(
            f"hydra.sweep.dir={sweep} already holds a sweep, which cannot be continued: {sweeper.rpartition('.')[2]}"
            " keeps its search in memory (hydra/sweeper=rlfw_optuna keeps it in the folder); sweep into another"
            " folder (the finished trials stay where they are)"
        )
    if sweeper == STUDY_SWEEPER and config.hydra.sweeper.get("storage") is None and not (sweep / STUDY).is_file():
        raise ConfigError(
            f"hydra.sweep.dir={sweep} holds a sweep without an Optuna study ({STUDY}) to go on with; sweep into"
            " another folder (the finished trials stay where they are)"
        )
    if resume is None:
        raise ConfigError(
            f"hydra.sweep.dir={sweep} already holds a sweep; finish it with the same command and"
            " resume=auto, or sweep into another folder"
        )
    try:
        before = OmegaConf.load(saved)
    except (OSError, OmegaConfBaseException) as err:
        raise ConfigError(f"resume=auto: {saved} is not readable: {str(err).splitlines()[0]}") from err
    if not isinstance(before, DictConfig) or "hydra" not in before:
        raise ConfigError(f"resume=auto: {saved} is not a sweep's {SAVED} (it has no hydra node)")
    changed = changes(definition(before), definition(config))
    if changed:
        raise ConfigError(
            f"resume=auto: these overrides change the sweep in {sweep}: {'; '.join(changed)}. A resumed"
            f" sweep may change only {', '.join(MAY_CHANGE)} and trainer.{{{','.join(MAY_CHANGE_TRAINER)}}}"
        )


def holds_sweep(sweep: Path) -> bool:
    """Hydra's basic sweeper saved its definition there, or a job of any sweeper ran there."""
    return (sweep / SAVED).is_file() or (sweep.is_dir() and any(sweep.glob("*/.hydra")))


def may_change(key: str) -> bool:
    parts = re.split(r"[./]", key.lstrip("+~"))
    return parts[0] in MAY_CHANGE or (parts[0] == "trainer" and len(parts) > 1 and parts[1] in MAY_CHANGE_TRAINER)


def definition(config: DictConfig) -> dict[str, Any]:
    """What makes a sweep's jobs: its overrides (``key=value`` as typed, sweeps such as ``seed=0,1,2``
    included) and the sweeper's search space, without the keys a resume may change."""
    overrides = dict(str(o).partition("=")[::2] for o in config.hydra.overrides.task)
    space = config.hydra.sweeper.get("params")
    params = OmegaConf.to_container(space, resolve=False) if space else {}
    assert isinstance(params, dict)
    searched = {
        **{key: value for key, value in overrides.items() if not may_change(key)},
        **{"hydra.sweeper.params." + str(key): value for key, value in params.items() if not may_change(str(key))},
    }
    if config.hydra.sweeper.get("_target_") == PBT_SWEEPER:  # every setting decides what the population does
        searched.update({f"hydra.sweeper.{k}": v for k, v in config.hydra.sweeper.items() if k != "params"})
    return searched


def changes(before: dict[str, Any], now: dict[str, Any]) -> list[str]:
    return [
        f"{key} ({before.get(key, 'unset')!s} before, {now.get(key, 'unset')!s} now)"
        for key in sorted(set(before) | set(now))
        if before.get(key) != now.get(key)
    ]
