"""Everything before training, for one job: resolve the config, check it, build its parts.

Hydra calls ``Preflight`` (a Hydra callback named in conf/config.yaml) before it creates a run folder,
and for a multirun before the first job, so a bad config stops with one line and leaves nothing
behind. The task function then runs ``prepare`` again on the same config and trains.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf, open_dict
from omegaconf.errors import OmegaConfBaseException

from rlfw.config import restart
from rlfw.config.check import check_config
from rlfw.config.job import Job
from rlfw.config.launchers import join_ray_cluster, require_slurm, split_cores, workers
from rlfw.config.path import config_dir
from rlfw.config.report import CONFIG_ERRORS, fail
from rlfw.config.schedule import check_resumed
from rlfw.config.sweep_folder import BASIC_SWEEPER, PBT_SWEEPER, STUDY_SWEEPER, check_sweep_folder
from rlfw.config.trainer import check_trainer
from rlfw.config.trials import check_trials
from rlfw.config.tuned import untuned
from rlfw.errors import ConfigError
from rlfw.pbt.check import check_pbt
from rlfw.plugins import search_path
from rlfw.state.init_from import prepare_init
from rlfw.state.lock import own
from rlfw.state.resume import Resume, prepare_resume


def plain(node: Any, resolve: bool = True) -> Any:
    """An OmegaConf node as plain dicts, lists and values."""
    return OmegaConf.to_container(node, resolve=resolve)


def prepare(config: DictConfig, hydra_cfg: Any) -> Job:
    """``config`` is the composed job config (its ``hydra`` node is ignored), ``hydra_cfg`` Hydra's node."""
    choices = plain(hydra_cfg.runtime.choices)
    overrides = plain(hydra_cfg.overrides.task, resolve=False)  # the strings, as typed
    dropped: list[str] = []
    cfg = checked(config, hydra_cfg, dropped)
    from rlfw.config.build import build_parts  # imports torch (seconds): errors found above answer without it

    parts = build_parts(cfg)
    job = Job(cfg, parts, choices, overrides, dropped, sweep_name(hydra_cfg), check_folder(cfg, run_folder(hydra_cfg)))
    job.untuned = untuned(choices)
    job.init = prepare_init(cfg, parts)
    return job


def sweep_name(hydra_cfg: Any) -> str | None:
    return Path(hydra_cfg.sweep.dir).name if hydra_cfg.get("mode") == RunMode.MULTIRUN else None


def checked(config: DictConfig, hydra_cfg: Any, dropped: list[str] | None = None) -> dict[str, Any]:
    """The job's config as it will run: every key checked, the cores split among the launcher's jobs;
    what a tuned file set for another option goes into ``dropped``."""
    choices = plain(hydra_cfg.runtime.choices)
    overrides = plain(hydra_cfg.overrides.task, resolve=False)  # the strings, as typed
    cfg = check_config(resolve(config), user_keys(overrides), choices, dropped)
    ddp = cfg["trainer"]["strategy"] == "ddp"
    if ddp and sweep_name(hydra_cfg) is not None:
        raise ConfigError(
            "trainer.strategy=ddp: not in a multirun (-m); Lightning starts the other ranks by running the"
            " command line again, which would run the whole sweep again: start each ddp run on its own"
        )
    return split_cores(cfg, workers(hydra_cfg) * (cfg["trainer"]["devices"] if ddp else 1))


def run_folder(hydra_cfg: DictConfig) -> Path | None:
    """The job's run folder: Hydra's output dir once the job runs, ``hydra.run.dir`` before a single
    run starts; None for a sweep's jobs before they run (their folders are new)."""
    if not OmegaConf.is_missing(hydra_cfg.runtime, "output_dir"):
        return Path(hydra_cfg.runtime.output_dir)
    return None if hydra_cfg.get("mode") == RunMode.MULTIRUN else Path(hydra_cfg.run.dir)


def check_folder(cfg: dict[str, Any], run_dir: Path | None) -> Resume | None:
    """A resumed run's checkpoint, checked; a new run never starts in a folder that holds one."""
    if run_dir is None:
        return None
    if cfg["resume"] is None:
        if (run_dir / "metrics.csv").exists() or (run_dir / "checkpoints").exists():
            raise ConfigError(
                f"hydra.run.dir={run_dir} already holds a run (metrics.csv, checkpoints/); continue it (or read"
                " its result, if it has finished) with resume=auto, or train into another folder"
            )
        return None
    resume = prepare_resume(cfg["resume"], run_dir, cfg)
    if resume is not None:
        check_resumed(resume.path, resume.state, cfg)
    return resume


def resolve(config: DictConfig) -> dict[str, Any]:
    task = OmegaConf.masked_copy(config, [str(k) for k in config if k != "hydra"])
    try:
        resolved: dict[str, Any] = OmegaConf.to_container(task, resolve=True, throw_on_missing=True)  # type: ignore[assignment]
        return resolved
    except OmegaConfBaseException as err:
        raise ConfigError(f"{err.full_key}: {str(err).splitlines()[0]}") from err


def composed(*overrides: str) -> dict[str, Any]:
    """The checked config that ``python -m rlfw <overrides>`` would run, as plain containers, composed
    without a Hydra app (for tests and benchmarks)."""
    search_path.install()
    with initialize_config_dir(config_dir(), version_base="1.3"):
        return check_config(plain(compose("config", list(overrides))))


def user_keys(overrides: list[str]) -> frozenset[str]:
    """The dotted keys an override list sets (``network/head=q`` gives ``network.head``)."""
    parsed = OverridesParser.create().parse_overrides(overrides)
    return frozenset(o.key_or_group.replace("/", ".") for o in parsed)


def check_job(config: DictConfig, built: set[str] | None = None) -> None:
    """Every check a job gets before training, the Trainer's flags last (that imports Lightning). ``built``:
    the configs (less their seed) whose parts a sweep has built already: a seed cannot stop parts that
    another seed built from being built, so each is built once (a sweep over seeds checks in seconds)."""
    cfg = checked(config, config.hydra, [])  # its dropped keys are logged when the job runs
    same = json.dumps({k: v for k, v in cfg.items() if k != "seed"}, sort_keys=True, default=str)
    if built is None or same not in built:
        from rlfw.config.build import build_parts

        prepare_init(cfg, build_parts(cfg))
        if built is not None:
            built.add(same)
    check_trainer(cfg)


def name_jobs_by_what_varies(config: DictConfig, parsed: list) -> None:
    """A job folder's name (``hydra.sweep.subdir``) holds ``hydra.job.override_dirname``: leave out
    of it the overrides that every job shares. Each job's config is composed again from the sweep's
    ``hydra.overrides.hydra``, so the exclusion reaches every launcher."""
    varying = {o.key_or_group for o in parsed if o.is_sweep_override()}
    shared = sorted({o.key_or_group for o in parsed} - varying)
    if shared:
        with open_dict(config):
            config.hydra.overrides.hydra.append(
                f"hydra.job.config.override_dirname.exclude_keys=[{','.join(repr(k) for k in shared)}]"
            )


class Preflight(Callback):
    """Checks, then takes the folder (``rlfw.state.lock``): an existing folder first, so that two
    processes cannot both pass the checks on it; a new one once the checks pass, so a bad config
    leaves nothing behind."""

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        HydraConfig.instance().set_config(config)  # hydra.run.dir names the folder from ${hydra:...}: set it now
        folder = Path(config.hydra.run.dir)
        # Known before the folder is taken: a signal at any moment the lock exists ends in the command that goes on.
        restart.goes_on = restart.command(plain(config.hydra.overrides.task, resolve=False), "hydra.run.dir", folder)
        try:
            if folder.is_dir():
                own(folder, "hydra.run.dir")
            check_job(config)
            own(folder, "hydra.run.dir")
        except CONFIG_ERRORS as err:
            fail(err)

    def on_multirun_start(self, config: DictConfig, config_name: str | None = None, **kwargs: Any) -> None:
        sweep = Path(config.hydra.sweep.dir)
        restart.goes_on = restart.command(sys.argv[1:], "hydra.sweep.dir", sweep)  # before the lock, as above
        try:
            if sweep.is_dir():
                own(sweep, "hydra.sweep.dir")
            check_sweep_folder(config)
            require_slurm(config.hydra)
            join_ray_cluster(config.hydra)
            check_sweep(config, config_name)
            own(sweep, "hydra.sweep.dir")
        except CONFIG_ERRORS as err:
            fail(err)


def check_sweep(config: DictConfig, config_name: str | None) -> None:
    """Names job folders by what the sweep varies, then checks every job of a basic sweep before
    the first starts; other sweepers pick their jobs as they go, and each job is checked when it starts."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper

    sweeper = config.hydra.sweeper
    if sweeper.get("_target_") == PBT_SWEEPER:  # its members' folders are named by the sweeper
        check_pbt(config, plain(config.hydra.overrides.task, resolve=False), lambda o: _checked_job(config_name, o))
        return
    arguments = [f"{k}={v}" for k, v in (sweeper.get("params") or {}).items()]
    arguments += plain(config.hydra.overrides.task, resolve=False)
    parsed = OverridesParser.create().parse_overrides(arguments)
    name_jobs_by_what_varies(config, parsed)
    if sweeper.get("_target_") == STUDY_SWEEPER:
        check_trials(sweeper)
    if sweeper.get("_target_") != BASIC_SWEEPER:
        return
    built: set[str] = set()
    for batch in BasicSweeper.split_arguments(parsed, None):
        for overrides in batch:
            check_job(_composed_job(config_name, list(overrides)), built)


def _checked_job(config_name: str | None, overrides: list[str]) -> dict[str, Any]:
    job = _composed_job(config_name, overrides)
    return checked(job, job.hydra, [])


def _composed_job(config_name: str | None, overrides: list[str]) -> DictConfig:
    """A sweep job's config, as the launcher will compose it."""
    job = compose(config_name, overrides, return_hydra_config=True)
    with open_dict(job):
        job.hydra.mode = RunMode.MULTIRUN  # compose leaves it unset
    return job
