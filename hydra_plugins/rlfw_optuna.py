"""``hydra/sweeper=rlfw_optuna``: Hydra's Optuna sweeper with its study kept in the sweep folder, so
that a search stopped half-way goes on with the same command and ``resume=auto``.

The study is ``<sweep dir>/optuna.db`` (SQLite; or the ``storage`` URL when one is set). Going on, the
trials it holds count toward ``n_trials`` and new trials take the job numbers after theirs, so no job
folder is written twice. A trial that was running when the sweep stopped runs again under its own
number with its own values, and ``resume=auto`` continues it from its checkpoint (or reads back its
result when it had finished). The sampler's random state is not kept: going on, a seeded sampler is
seeded with its seed plus the number of trials held, so it does not ask again for the values it drew
before the stop (the trials after a restart are not those an uninterrupted search would have tried).

It lives in Hydra's ``hydra_plugins`` namespace because Hydra instantiates sweepers from there only.
"""

from __future__ import annotations

import logging
from itertools import groupby
from pathlib import Path
from typing import Any

from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

STUDY = "optuna.db"
log = logging.getLogger("rlfw")


class RlfwOptunaSweeper(Sweeper):
    def __init__(self, **params: Any) -> None:
        from hydra_plugins.hydra_optuna_sweeper._impl import OptunaSweeperImpl

        self.optuna = OptunaSweeperImpl(**params)

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.optuna.setup(hydra_context=hydra_context, task_function=task_function, config=config)
        self.sampler = config.hydra.sweeper.sampler
        sweep = Path(config.hydra.sweep.dir).absolute()
        sweep.mkdir(parents=True, exist_ok=True)
        if self.optuna.storage is None:
            self.optuna.storage = f"sqlite:///{sweep / STUDY}"
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
        from optuna.trial import TrialState

        study = self.study
        stopped = [t for t in study.trials if t.state == TrialState.RUNNING]
        if stopped:
            self.run_again(study, stopped, arguments)
        held = len(study.trials)
        if held:
            log.info("%s: %d trials held, %d to go", self.optuna.storage, held, max(0, self.optuna.n_trials - held))
        self.optuna.n_trials = max(0, self.optuna.n_trials - held)
        if held and self.sampler.get("seed") is not None:
            self.optuna.sampler = instantiate(self.sampler, seed=self.sampler.seed + held)
        self.optuna.job_idx = held
        self.optuna.sweep(arguments)

    def run_again(self, study: Any, stopped: list[Any], arguments: list[str]) -> None:
        """The trials a stopped sweep left running, each under its own job number (consecutive ones
        launched together), told to the study as the sweeper tells a trial it asked for."""
        from hydra_plugins.hydra_optuna_sweeper._impl import create_params_from_overrides
        from optuna.trial import TrialState

        launcher = self.optuna.launcher
        assert launcher is not None  # set up by setup()
        _, fixed = create_params_from_overrides([*self.optuna._parse_sweeper_params_config(), *arguments])
        runs = groupby(enumerate(stopped), key=lambda pair: pair[1].number - pair[0])
        for _, run in runs:
            trials = [trial for _, trial in run]
            overrides = [tuple(f"{k}={v}" for k, v in {**t.params, **fixed}.items()) for t in trials]
            returns = launcher.launch(overrides, initial_job_idx=trials[0].number)
            for trial, ret in zip(trials, returns, strict=True):
                try:
                    study.tell(trial.number, ret.return_value)
                except Exception as err:  # a failed job: as the Optuna sweeper does, a failed trial
                    study.tell(trial.number, state=TrialState.FAIL)
                    log.warning("trial %d failed: %s", trial.number, err)
