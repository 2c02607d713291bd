"""The run as a typed stream: ``Stream`` owns the training envs and their collector, the clock (the run's
``RunProgress``: one env-step count every part reads), the timings and the evaluation state, and is what
``RLModule``'s one training step pulls batches from (its train dataloader hands the stream over whole):

    evaluate when ``eval.every`` env steps have passed (a stop signal cuts it short)
    set the values the config's ``schedule`` gives at this env step
    collect ``replay.collect_steps`` vector steps with the live policy
    if the replay is ready: yield its batches (each one update, applied before the next is pulled)
    safe point: a checkpoint when due, or stop here if a signal asked to

At a safe point every update pulled so far is applied and nothing is half-done, so a checkpoint
taken there resumes exactly (``rlfw.state.run_state``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from time import perf_counter
from typing import Any

import torch

from rlfw.batch import Batch
from rlfw.env.league import League
from rlfw.explore.act import player
from rlfw.network.normalize import normalizers
from rlfw.run.collector import Collector
from rlfw.run.evaluate import Evaluation
from rlfw.run.progress import Progress
from rlfw.run.ranks import env_seed, from_rank_zero, rank_and_world
from rlfw.run.timings import Timings, finisher
from rlfw.state.hooks import run_callbacks
from rlfw.state.init_from import start_from
from rlfw.state.resume import for_rank
from rlfw.state.run_state import restore_run

log = logging.getLogger("rlfw")


class Stream:
    def __init__(self, module) -> None:
        self.module, self.cfg = module, module.cfg
        self.clock = module.progress  # the run's counters, env steps first (rlfw.state.progress)
        self.timings = Timings()
        self.evaluation = Evaluation(module.env.spec, self.cfg["seed"])
        self.collector: Collector | None = None  # made when the stream starts (the envs with it)

    def __iter__(self) -> Iterator[Batch]:
        module, cfg, run = self.module, self.cfg, self.clock
        rank = rank_and_world(module)[0]
        c = self._start(rank)
        eval_envs = module.env.make(cfg["eval"]["episodes"], evaluation=True) if rank == 0 else None
        bar = Progress(module.total, cfg["progress_every_s"], run.unit_words)
        finish = finisher(module.device)
        try:
            while True:
                if run.now() >= run.next_eval:  # first thing on resume from a safe point before one
                    if not self.evaluate(eval_envs):
                        module.safe_point()  # stopped mid-way: the checkpoint redoes this evaluation
                        return
                    run.next_eval += cfg["eval"]["every"]
                if rank == 0:
                    bar.update(module)
                if run.now() >= module.total or run.solved or self.paused():
                    break
                learner = module.learner
                assert learner is not None, "on_train_start makes the learner"
                module.schedule.apply(run.now(), learner.optimizer, learner.scheduler)
                if c is not None:  # none learning from data
                    c.collect(module.replay.collect_steps, module.total)  # a partial rollout is never ready
                if module.replay.ready():
                    start = perf_counter()
                    yield from module.replay.batches(module.net)
                    finish()
                    self.timings.update += perf_counter() - start
                if module.safe_point():
                    return
            if not run.evals or run.evals[-1][run.unit] != run.now():
                self.evaluate(eval_envs)  # the final evaluation, after the last update
        finally:
            bar.close()
            if c is not None:
                c.envs.close()
            if eval_envs is not None:
                eval_envs.close()

    def paused(self) -> bool:
        """This start of the run ends here (``pause_at``): evaluated and checkpointed, as at its end."""
        pause_at = self.cfg["pause_at"]
        return pause_at is not None and self.clock.now() >= pause_at

    def _start(self, rank: int) -> Collector | None:
        """This rank's training envs (inside a league where past versions play), their collector on the
        run's clock (none learning from data), and the run's state put back where it resumes."""
        module, cfg = self.module, self.cfg
        world = rank_and_world(module)[1]
        if world > 1:
            torch.manual_seed(cfg["seed"] + rank)  # same initial weights, but each rank samples its own actions
        self.timings = Timings()
        if not module.replay.fixed:
            seed = env_seed(cfg["seed"], rank, cfg["num_envs"])
            envs = self._league(module.env.make(cfg["num_envs"]), seed)
            parts = (module.net, module.explore, module.replay, module.env.spec)
            self.collector = Collector(envs, *parts, self.clock, self.timings, seed, module.device, world)
        elif module.resume is None:  # network.normalize_obs on a dataset: its statistics (TD3+BC's normalized states)
            for norm in normalizers(module.net):
                norm.update(module.replay.observations())
        module.resume_clock(0.0)
        if module.resume is not None:
            restore_run(module, *for_rank(module.resume.path, module.resume.state, rank))
            log.info("resumed from %s at %s %s", module.resume.path, f"{self.clock.now():,}", self.clock.unit_words)
        elif module.init is not None:
            start_from(module, module.init)
            log.info("started from the networks and optimizer state of %s", self.cfg["init_from"])
        return self.collector

    def _league(self, envs, seed: int):
        """``envs``, where some training games are played against past versions (``league.past``), inside
        the league that plays them (``rlfw.env.league``)."""
        given, module = self.cfg["league"], self.module
        if given["past"] == 0:
            return envs
        spec = module.env.spec
        play = player(module.explore, self.clock, module.device, spec.num_actions)  # the run's rule, a past version
        seats = spec.rows_per_copy
        return League(envs, seats, module.net, play, self.clock, given["past"], given["keep"], given["every"], seed)

    def evaluate(self, eval_envs) -> bool:
        """Rank 0 plays the greedy episodes (``eval_envs``; None on other ranks); every rank records the
        result. False when a stop signal cut the evaluation short (nothing is recorded then)."""
        module = self.module
        start = perf_counter()
        played = None if eval_envs is None else self.evaluation.run(module, eval_envs, module.stop_requested)
        result = from_rank_zero(module, played)
        self.timings.evaluate += perf_counter() - start
        if result is None:
            return False
        if module.replay.references is not None:  # a dataset's: D4RL's 100 (R - R_random) / (R_expert - R_random)
            low, high = module.replay.references
            result["normalized_score"] = 100 * (result["return_mean"] - low) / (high - low)
        self.clock.evals.append(result)
        module.write({f"eval/{k}": v for k, v in result.items() if k not in ("env_steps", "updates", "wall_seconds")})
        if module._trainer is not None:  # callbacks (best.ckpt) see the weights just evaluated
            for callback in run_callbacks(module.trainer):
                callback.on_eval(module.trainer, module, result)
        for logger in module.loggers:
            logger.save()  # metrics reach the disk at every evaluation, not only at the end
        solved_at = module.env.spec.solved_return
        if self.cfg["stop_when_solved"] and solved_at is not None and result["return_mean"] >= solved_at:
            self.clock.solved = True
            if eval_envs is not None:
                log.info(
                    "solved: greedy eval return %.6g >= %g at %d %s",  # %g: a bar of 0.999 reads as itself
                    result["return_mean"],
                    solved_at,
                    self.clock.now(),
                    self.clock.unit_words,
                )
        return True

    def recent(self, episodes: int = 20) -> tuple[list[float], list[int]]:
        """Returns and lengths of the last ``episodes`` training episodes (none before the stream starts)."""
        return ([], []) if self.collector is None else self.collector.recent(episodes)

    def state_dict(self) -> dict[str, Any]:
        """What of the stream a checkpoint keeps: the collector (its envs, league included; none learning
        from data) and the evaluation's."""
        collected = self.collector.state_dict() if self.collector is not None else {"envs_unsaved": ""}
        return {**collected, "evaluation": self.evaluation.state_dict()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.collector is not None:
            self.collector.load_state_dict(state)
        self.evaluation.load_state_dict(state.get("evaluation"))
