"""``hydra/sweeper=rlfw_pbt``: population-based training (Jaderberg et al. 2017) as a Hydra sweeper.

A population of runs trains side by side in generations of ``interval`` env steps, each generation
one batch of jobs on the chosen launcher (basic, joblib, Ray, Slurm). A member's job goes on from its
own checkpoint (``resume=auto``) and pauses at the generation's end (``pause_at``); then the bottom
quantile copies top members' checkpoints and changes their values (``rlfw.pbt.population``). A value
PBT changes is a ``schedule`` entry of the member's run, so what it found is a schedule a single run
can follow. Everything it decided is in ``<sweep>/pbt.json``: the same command with ``resume=auto``
goes on from any stop, and decides as an uninterrupted search would.

It lives in Hydra's ``hydra_plugins`` namespace because Hydra instantiates sweepers from there only.
"""

from __future__ import annotations

import logging
import math
import sys
from pathlib import Path
from typing import Any

from hydra.core.plugins import Plugins
from hydra.core.utils import JobReturn, JobStatus
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, OmegaConf

log = logging.getLogger("rlfw")


class MemberFailed(RuntimeError):
    """A member's run ended in an error of its own (exit code 1: non-finite values, a broken env, a full disk)."""


class Guarded:
    """The task function, with a member's own failure (rlfw's exit code 1) turned into an error the
    launcher records as the job's, so the search can replace the member. A stop signal or a config
    error (any other exit code) still ends the sweep."""

    def __init__(self, task_function: TaskFunction):
        self.task_function = task_function

    def __call__(self, cfg: DictConfig) -> Any:
        try:
            return self.task_function(cfg)
        except SystemExit as err:
            if err.code != 1:
                raise
            raise MemberFailed("its run ended in an error (exit code 1; the line above says which)") from err


class RlfwPBTSweeper(Sweeper):
    def __init__(self, **node: Any) -> None:
        self.node = node

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.run_config = config  # the sweep's composed config (Sweeper's own attributes are optional)
        self.jobs = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=Guarded(task_function), config=config
        )
        self.dir = Path(config.hydra.sweep.dir).absolute()
        self.dir.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(config, self.dir / "multirun.yaml")  # as Hydra's basic sweeper does

    def sweep(self, arguments: list[str]) -> None:
        from rlfw.errors import RunError

        try:
            self._sweep(arguments)
        except RunError as err:  # one line, as a run's own errors end
            print(f"rlfw: {err}", file=sys.stderr)
            sys.exit(1)

    def _sweep(self, arguments: list[str]) -> None:
        from rlfw.pbt import folders
        from rlfw.pbt.jobs import OWN_KEYS
        from rlfw.pbt.population import Population, first_members
        from rlfw.pbt.report import report
        from rlfw.pbt.settings import read_settings

        settings = read_settings(OmegaConf.to_container(OmegaConf.create(self.node), resolve=True))
        fixed = [a for a in arguments if a.lstrip("+~").partition("=")[0] not in OWN_KEYS]  # resume=auto
        data = bool(self.run_config.get("data"))
        total = self.run_config.total_updates if data else self.run_config.total_env_steps
        generations = math.ceil(total / settings.interval)
        population = Population.load(self.dir) or Population(first_members(settings))
        if population.generation:
            log.info("%s: going on at generation %d of %d", self.dir, population.generation, generations)
        while population.generation < generations:
            if population.phase == "train":
                self._train(settings, population, fixed, total, generations)
            if population.phase == "exploit":  # stage every copy: the sources are still at the generation's end
                folders.clear_staging(self.dir)
                for member in population.next:
                    if member.copied_from is not None:
                        folders.stage_copy(self.dir, member.copied_from, member.slot)
                population.phase = "swap"
                population.save(self.dir)
            if population.phase == "swap":
                for member in population.next:
                    folders.swap_in(self.dir, member.slot)
                folders.clear_staging(self.dir)
                population.members, population.next = population.next, []
                population.generation += 1
                population.phase = "train"
                population.save(self.dir)
        report(self.dir, settings, population, fixed)

    def _train(self, settings: Any, population: Any, fixed: list[str], total: int, generations: int) -> None:
        """One generation: every member's job, then its scores and what the next generation copies."""
        from rlfw.errors import RunError
        from rlfw.pbt import folders
        from rlfw.pbt.jobs import member_overrides
        from rlfw.pbt.population import exploit_and_explore

        g = population.generation
        end = min(total, (g + 1) * settings.interval)
        started = population.history[-1]["env_steps"] if population.history else 0
        jobs = [member_overrides(m, fixed, None if end >= total else end) for m in population.members]
        log.info("generation %d of %d: %d members to %s", g + 1, generations, len(jobs), f"{end:,}")
        returns = self.jobs.launch(jobs, initial_job_idx=g * settings.population)
        scores: list[float | None] = []
        rows = []
        for member, job in zip(population.members, returns, strict=True):
            folder = folders.member_dir(self.dir, member.slot)
            failure = failed(job)
            score, evals = folders.logged(folder, settings.metric, started)
            if failure is None and score is None:
                raise RunError(
                    f"hydra.sweeper.metric={settings.metric}: member_{member.slot}'s run logged no {settings.metric}"
                    f" (see {folder / 'metrics.csv'}); rank on one it logs"
                )
            if failure is not None:
                if settings.on_failure == "stop":
                    raise RunError(
                        f"member_{member.slot} failed in generation {g + 1} ({failure}); hydra.sweeper.on_failure=stop"
                        " ends the search here; the same command with resume=auto runs the generation again"
                    )
                log.warning(
                    "member_%d failed in generation %d (%s); it copies a top member", member.slot, g + 1, failure
                )
            scores.append(None if failure is not None else score)
            rows.append(
                {
                    "slot": member.slot,
                    "seed": member.seed,
                    "values": member.values(),
                    "copied_from": member.copied_from,  # the checkpoint it went on from, at this generation's start
                    "score": scores[-1],
                    "evals": evals,
                }
            )
        if all(s is None for s in scores):
            raise RunError(f"every member failed in generation {g + 1}: the search cannot go on")
        at = max(folders.paused_at(folders.member_dir(self.dir, m.slot)) or 0 for m in population.members)
        population.history.append({"generation": g, "env_steps": at, "members": rows})
        if g + 1 < generations:
            population.next = exploit_and_explore(settings, population.members, scores, g, at)
            population.phase = "exploit"
        else:
            population.generation += 1
        population.save(self.dir)


def failed(job: JobReturn) -> str | None:
    """Why the member's job failed; None when it completed."""
    if job.status == JobStatus.COMPLETED:
        return None
    error = job._return_value
    return str(error) if error is not None else "no result"
