"""``hydra/sweeper=rlfw_optuna``: Hydra's Optuna sweeper's search (its keys, samplers and search space),
with trials of several seeds, pruning, and the study kept in the sweep folder, so that a search stopped
half-way goes on with the same command and ``resume=auto``.

A trial is ``seeds`` jobs (seeds 0 to seeds-1, the same for every trial), run side by side by the
launcher in ``<sweep>/trial_<n>/seed_<s>``; its objective is their ``aggregate`` (median, IQM or mean),
so a setting that wins on one lucky seed does not win the study. With ``prune_every`` its jobs pause
every that many env steps (``pause_at``) and the trial reports the aggregate of their objectives so
far to the study's ``pruner``, which may stop it there (Optuna's PRUNED); the others go on from their
checkpoints.

The study is ``<sweep dir>/optuna.db`` (SQLite; or the ``storage`` URL when one is set). Going on, the
trials it holds count toward ``n_trials``; a trial that was running when the sweep stopped runs again
with its own values, and ``resume=auto`` continues each of its jobs from its checkpoint (or reads back
its result when it had finished). The sampler's random state is not kept: going on, a seeded sampler
is seeded with its seed plus the number of trials held, so it does not ask again for the values it drew
before the stop (the trials after a restart are not those an uninterrupted search would have tried).

It lives in Hydra's ``hydra_plugins`` namespace because Hydra instantiates sweepers from there only.
"""

from __future__ import annotations

import functools
import logging
import math
from pathlib import Path
from typing import Any

from hydra.core.utils import JobStatus
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

STUDY = "optuna.db"
SET_PER_JOB = ("seed", "pause_at", "resume")  # a trial of several seeds sets these in each of its jobs
log = logging.getLogger("rlfw")


class RlfwOptunaSweeper(Sweeper):
    def __init__(
        self,
        seeds: int = 1,
        aggregate: str = "median",
        prune_every: int | None = None,
        pruner: Any = None,
        **params: Any,
    ) -> None:
        from hydra_plugins.hydra_optuna_sweeper._impl import OptunaSweeperImpl

        self.optuna = OptunaSweeperImpl(**params)
        self.seeds, self.aggregate, self.prune_every = seeds, aggregate, prune_every
        self.job_idx = 0

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.optuna.setup(hydra_context=hydra_context, task_function=task_function, config=config)
        assert self.optuna.launcher is not None  # made by its setup
        self.run_config, self.jobs = config, self.optuna.launcher
        self.sampler = config.hydra.sweeper.sampler
        self.pruner = config.hydra.sweeper.pruner  # its config: Hydra hands __init__ an instance
        sweep = Path(config.hydra.sweep.dir).absolute()
        sweep.mkdir(parents=True, exist_ok=True)
        if self.optuna.storage is None:  # the folder's own database: one study, found again by its name
            self.optuna.storage = f"sqlite:///{sweep / STUDY}"
            self.optuna.study_name = self.optuna.study_name or "study"
        self.study = self.open_study()  # it exists before the definition a rerun is checked against
        OmegaConf.save(config, sweep / "multirun.yaml")  # as Hydra's basic sweeper does

    def open_study(self) -> Any:
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        return optuna.create_study(
            study_name=self.optuna.study_name,
            storage=self.optuna.storage,
            directions=self.optuna._get_directions(),
            load_if_exists=True,
        )

    def sweep(self, arguments: list[str]) -> None:
        """As Hydra's Optuna sweeper asks and tells, but a trial is ``seeds`` jobs (with pauses)."""
        import optuna
        from hydra_plugins.hydra_optuna_sweeper._impl import create_params_from_overrides

        opt = self.optuna
        opt._process_searchspace_config()
        space, fixed = create_params_from_overrides([*opt._parse_sweeper_params_config(), *arguments])
        space = {k: v for k, v in space.items() if k not in fixed}
        held = len(self.study.trials)
        sampler = instantiate(self.sampler, seed=self.sampler.seed + held) if self.seeded(held) else opt.sampler
        if isinstance(sampler, functools.partial) and sampler.func is optuna.samplers.GridSampler:
            grid = {name: opt._to_grid_sampler_choices(d) for name, d in space.items()}  # as Hydra's sweeper
            sampler, opt.n_trials = sampler(grid), min(opt.n_trials, math.prod(len(c) for c in grid.values()))
        study = optuna.create_study(
            study_name=self.study.study_name,  # the one setup opened (a study without a name gets one there)
            storage=opt.storage,
            sampler=sampler,
            pruner=instantiate(self.pruner) if self.pruner is not None else None,
            directions=opt._get_directions(),
            load_if_exists=True,
        )
        stopped = [t for t in study.trials if t.state == optuna.trial.TrialState.RUNNING]
        if held:
            log.info("%s: %d trials held, %d to go", opt.storage, held, max(0, opt.n_trials - held))
        for trial in stopped:  # each again, its jobs from their checkpoints
            again = [f"{k}={v}" for k, v in {**trial.params, **fixed}.items()]
            self.run_trials(study, [(optuna.trial.Trial(study, trial._trial_id), again)])
        to_go = max(0, opt.n_trials - held)
        while to_go > 0:
            trials = [study.ask() for _ in range(min(opt.n_jobs, to_go))]
            overrides = opt._configure_trials(trials, space, fixed)
            self.run_trials(study, [(t, list(o)) for t, o in zip(trials, overrides, strict=True)])
            to_go -= len(trials)
        self.write_best(study)

    def seeded(self, held: int) -> bool:
        return bool(held) and self.sampler.get("seed") is not None

    def run_trials(self, study: Any, trials: list[tuple[Any, list[str]]]) -> None:
        """Each trial's seeds as jobs, launched together, pausing every ``prune_every`` env steps to
        report the trial's objective so far (the aggregate of its jobs') and let the pruner stop it."""
        from optuna.trial import TrialState

        from rlfw.config.trials import aggregate

        cfg = self.run_config
        total = cfg.total_updates if cfg.get("data") else cfg.total_env_steps
        ends = [*range(self.prune_every, total, self.prune_every), total] if self.prune_every else [total]
        live, failures = trials, []
        for end in ends:
            jobs = [
                [
                    *(o for o in overrides if o.partition("=")[0] not in SET_PER_JOB),
                    f"seed={seed}",
                    f"pause_at={end if end < total else 'null'}",
                    "resume=auto",
                    f"hydra.sweep.subdir=trial_{trial.number}/seed_{seed}",
                ]
                for trial, overrides in live
                for seed in range(self.seeds)
            ]
            returns = self.jobs.launch(jobs, initial_job_idx=self.job_idx)
            self.job_idx += len(jobs)
            going_on = []
            for index, (trial, overrides) in enumerate(live):
                mine = returns[index * self.seeds : (index + 1) * self.seeds]
                try:
                    values = [float(r.return_value) for r in mine]
                except Exception as err:  # a failed job fails its trial, as the Optuna sweeper does
                    study.tell(trial.number, state=TrialState.FAIL)
                    log.warning("trial %d failed: %s", trial.number, err)
                    failures.append(next(r for r in mine if r.status != JobStatus.COMPLETED))
                    continue
                value = aggregate(values, self.aggregate)
                if end >= total:
                    tell(study, trial.number, value)
                    continue
                trial.report(value, end)
                if trial.should_prune():
                    study.tell(trial.number, state=TrialState.PRUNED)
                    log.info(
                        "trial %d pruned at %s env steps (%s %.6g)", trial.number, f"{end:,}", self.aggregate, value
                    )
                    continue
                going_on.append((trial, overrides))
            live = going_on
        if failures and len(failures) / len(trials) > self.optuna.max_failure_rate:
            _ = failures[0].return_value  # raises the job's error, with its traceback (as the Optuna sweeper does)

    def write_best(self, study: Any) -> None:
        """``optimization_results.yaml``, as Hydra's Optuna sweeper writes it (single objective)."""
        from optuna.trial import TrialState

        if not study.get_trials(states=(TrialState.COMPLETE,)):
            log.warning("no trial completed (each was pruned or failed): no best trial to write")
            return
        best = study.best_trial
        log.info(
            "best trial %d: %s %.6g over %d seeds; %s", best.number, self.aggregate, best.value, self.seeds, best.params
        )
        results = {"name": "optuna", "best_params": best.params, "best_value": best.value}
        OmegaConf.save(OmegaConf.create(results), Path(self.run_config.hydra.sweep.dir) / "optimization_results.yaml")


def tell(study: Any, number: int, value: float) -> None:
    """``study.tell``; the grid sampler's last trial calls ``Study.stop``, which Optuna refuses outside
    ``optimize`` once the trial is told (Hydra's Optuna sweeper lets that pass too)."""
    try:
        study.tell(number, value)
    except RuntimeError as err:
        if "`Study.stop` is supposed to be invoked" not in str(err):
            raise
