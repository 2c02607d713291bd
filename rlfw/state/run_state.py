"""What a checkpoint holds, and putting it back: everything a run needs to go on exactly where it was.

Tensors and plain containers only, so checkpoints load with ``torch.load(weights_only=True)``:
the networks and target, the optimizer and LR schedule, the counters (env steps, updates, the next
evaluation, metric rows written), the evaluations so far, the train terms averaged since the last
metric row, the stream (its envs where they can be restored, a league's past versions, the observation
it acts on next, episode statistics, the evaluation's previous opponent), every random generator, and stateful explore and target plugins. The replay's
contents go to their own file beside the checkpoint (``rlfw.state.checkpoint``).
"""

from __future__ import annotations

import logging
from typing import Any

import lightning.pytorch as pl

from rlfw.plugins import distribution
from rlfw.registry import chosen
from rlfw.state.names import FORMAT
from rlfw.state.rng import rng_state, set_rng_state

log = logging.getLogger("rlfw")


def _plugins(module) -> dict[str, Any]:
    return {"explore": module.explore, "target": module.target_rule}


def run_state(module) -> dict[str, Any]:
    trainer = module.trainer
    schedulers = trainer.lr_scheduler_configs
    wandb = [logger.experiment.id for logger in trainer.loggers if isinstance(logger, pl.loggers.WandbLogger)]
    return {
        "rlfw_checkpoint": FORMAT,
        "config": module.cfg,
        "state_dict": module.state_dict(),
        "optimizer": trainer.optimizers[0].state_dict(),
        "scheduler": schedulers[0].scheduler.state_dict() if schedulers else None,
        "run": {
            **module.progress.state_dict(),
            "wall_seconds": module.wall_seconds(),
            "interval": module.interval.state_dict(),
        },
        **_own(module),
        "wandb_id": wandb[0] if wandb else None,
        # the plugin distributions of options not rlfw's own: rlfw.load names what to install
        "options_from": {key: distribution(*pick) for key, pick in chosen(module.cfg).items() if distribution(*pick)},
    }


def _own(module) -> dict[str, Any]:
    """The part of the run state each rank of a ddp run has of its own: its envs, explore state, generators."""
    return {
        "collector": module.stream.state_dict(),
        "plugins": {k: p.state_dict() for k, p in _plugins(module).items()},
        "rng": rng_state(),
    }


def rank_state(module) -> dict[str, Any]:
    """What differs between the ranks of a ddp run (``trainer.strategy=ddp``): ``_own`` and the replay
    its envs filled. Ranks > 0 write it beside rank 0's checkpoint, which holds the rest (networks,
    optimizer, counters: the same on every rank)."""
    return {**_own(module), "replay": module.replay.state_dict()}


def restore_run(module, state: dict[str, Any], replay: dict[str, Any]) -> None:
    """Puts ``state`` (and the replay's ``replay``) back into a module whose fit has started."""
    trainer = module.trainer
    module.load_state_dict(state["state_dict"])
    trainer.optimizers[0].load_state_dict(state["optimizer"])
    if state["scheduler"] is not None:
        trainer.lr_scheduler_configs[0].scheduler.load_state_dict(state["scheduler"])
    run = state["run"]
    module.progress.load_state_dict(run)
    module.interval.load_state_dict(run["interval"])
    module.resume_clock(run["wall_seconds"])
    module.replay.load_state_dict(replay)
    module.stream.load_state_dict(state["collector"])  # after the replay: envs not saved end its episodes
    for name, plugin in _plugins(module).items():
        if name in state["plugins"]:
            plugin.load_state_dict(state["plugins"][name])
    set_rng_state(state["rng"])
    unsaved = state["collector"]["envs_unsaved"]
    if unsaved:
        log.warning("resume: the envs could not be saved (%s); they start new episodes", unsaved)
