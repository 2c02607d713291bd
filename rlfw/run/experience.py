"""The experience stream: the loop that steps the envs, hands the replay's batches to Lightning,
evaluates and checkpoints. ``RLModule``'s train dataloader iterates it.

    evaluate when ``eval.every`` env steps have passed (a stop signal cuts it short)
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

import torch

from rlfw.batch import Batch
from rlfw.run.collector import Collector
from rlfw.run.evaluate import evaluation
from rlfw.run.games import game_evaluation
from rlfw.run.league import league
from rlfw.run.progress import Progress
from rlfw.run.ranks import env_seed, from_rank_zero, rank_and_world
from rlfw.run.timings import finisher
from rlfw.state.resume import for_rank
from rlfw.state.run_state import restore_run

log = logging.getLogger("rlfw")


def experience(module) -> Iterator[Batch]:
    cfg = module.cfg
    rank, world = rank_and_world(module)
    if world > 1:
        torch.manual_seed(cfg["seed"] + rank)  # same initial weights, but each rank samples its own actions
    envs = module.env.make(cfg["num_envs"])
    eval_envs = module.env.make(cfg["eval"]["episodes"], evaluation=True) if rank == 0 else None
    seed = env_seed(cfg["seed"], rank, cfg["num_envs"])
    past = league(cfg, envs, module.net, module.explore, seed, module.device)
    module.collector = c = Collector(envs, module.net, module.explore, module.replay, seed, module.device, world, past)
    module.resume_clock(0.0)
    if module.resume is not None:
        restore_run(module, *for_rank(module.resume.path, module.resume.state, rank))
        log.info("resumed from %s at %s env steps", module.resume.path, f"{module.progress.env_steps:,}")
    bar = Progress(module.total_env_steps, cfg["progress_every_s"])
    run = module.progress  # the run's counters (rlfw.state.progress), restored above on a resume
    finish = finisher(module.device)
    try:
        while True:
            if run.env_steps >= run.next_eval:  # first thing on resume from a safe point before one
                if not evaluate(module, eval_envs):
                    module.safe_point()  # stopped mid-way: the checkpoint redoes this evaluation
                    return
                run.next_eval += cfg["eval"]["every"]
            if rank == 0:
                bar.update(module)
            if c.env_steps >= module.total_env_steps or run.solved:
                break
            c.collect(module.replay.collect_steps, module.total_env_steps)  # a partial rollout is never ready
            run.env_steps = c.env_steps
            if module.replay.ready():
                start = perf_counter()
                yield from module.replay.batches(module.net)
                finish()
                c.timings.update += perf_counter() - start
            if module.safe_point():
                return
        if not run.evals or run.evals[-1]["env_steps"] != run.env_steps:
            evaluate(module, eval_envs)  # the final evaluation, after the last update
    finally:
        bar.close()
        envs.close()
        if eval_envs is not None:
            eval_envs.close()


def evaluate(module, eval_envs) -> bool:
    """Rank 0 plays the greedy episodes (``eval_envs``; None on other ranks); every rank records the
    result. False when a stop signal cut the evaluation short (nothing is recorded then)."""
    start = perf_counter()
    measure = game_evaluation if getattr(eval_envs, "turns", False) else evaluation  # a game: results per seat
    result = from_rank_zero(module, None if eval_envs is None else measure(module, eval_envs, module.stop_requested))
    module.collector.timings.evaluate += perf_counter() - start
    if result is None:
        return False
    module.progress.evals.append(result)
    module.write({f"eval/{k}": v for k, v in result.items() if k not in ("env_steps", "wall_seconds")})
    if module._trainer is not None:  # callbacks with an on_eval hook (best.ckpt) see the weights just evaluated
        for callback in module.trainer.callbacks:
            if hasattr(callback, "on_eval"):
                callback.on_eval(module.trainer, module, result)
    for logger in module.loggers:
        logger.save()  # metrics reach the disk at every evaluation, not only at the end
    solved_at = module.env.spec.solved_return
    if module.cfg["stop_when_solved"] and solved_at is not None and result["return_mean"] >= solved_at:
        module.progress.solved = True
        if eval_envs is not None:
            log.info(
                "solved: greedy eval return %.6g >= %g at %d env steps",  # %g: a bar of 0.999 reads as itself
                result["return_mean"],
                solved_at,
                module.progress.env_steps,
            )
    return True
