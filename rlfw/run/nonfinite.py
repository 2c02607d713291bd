"""Never train on NaN: every update's loss terms and gradients, and the parameters after it, must be finite.

``on_nonfinite=stop`` (the default) writes ``checkpoints/nonfinite.ckpt`` (the state as it was, for
debugging) and stops with an error naming the update, the env step and the term. Loss and gradients
are checked at every update; parameters before each checkpoint of the run state and at the safe
point before an evaluation or the run's end, where something is about to use them: finite gradients
keep them finite in between, and a pass over every parameter at every safe point would cost DQN a
share of each update cycle (docs/design.md, "Speed choices, and why").
``on_nonfinite=skip`` drops a non-finite loss's or gradient's update instead (the optimizer leaves
parameters without a gradient alone) and counts the skips in ``train/nonfinite_skips``; non-finite
parameters always stop the run, since no later update can undo them.

When all is well an update costs one check of the summed loss and one fused norm over all gradients
(a norm is finite exactly when every element is, short of overflow in the square sum). Gradient
clipping by norm (``trainer.gradient_clip_val``) reuses that norm: ``RLModule.configure_gradient_clipping``.
"""

from __future__ import annotations

import logging

import lightning.pytorch as pl
import torch

from rlfw.errors import NonFiniteError
from rlfw.state.checkpoint import Checkpoints

log = logging.getLogger("rlfw")


def first_nonfinite(named: dict[str, torch.Tensor]) -> str | None:
    """The first name whose tensor has a non-finite element, checked with one fused norm first (the
    norm of huge finite values can overflow: then each tensor is checked, and all may be finite)."""
    tensors = [t.detach() for t in named.values()]
    if not tensors or torch.isfinite(torch.nn.utils.get_total_norm(tensors)):
        return None
    return next((name for name, t in named.items() if not torch.isfinite(t.detach()).all()), None)


class NonFiniteGuard(pl.Callback):
    def __init__(self, mode: str, checkpoints: Checkpoints):
        self.mode, self.checkpoints = mode, checkpoints

    def on_before_optimizer_step(self, trainer: pl.Trainer, module, optimizer) -> None:
        module.grad_norm = None
        if not torch.isfinite(module.loss):  # the terms' sum: finite exactly when every term is
            problem: str | None = (
                first_nonfinite({k: v for k, v in module.out.items() if k.startswith("loss_")}) or "the loss"
            )
        else:  # what the optimizer steps (the loss's own parameters too: SAC's alpha), in its order as clipping has them
            grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
            module.grad_norm = torch.nn.utils.get_total_norm(grads)
            problem = None
            if not torch.isfinite(module.grad_norm):
                problem = first_nonfinite(
                    {f"gradient of {n}": p.grad for n, p in module.named_parameters() if p.grad is not None}
                )
        if problem is None:
            return
        where = f"update {module.updates + 1:,} (env step {module.env_steps:,})"
        if self.mode != "skip":
            self._stop(trainer, module, f"{problem} is not finite at {where}")
        for p in module.net.parameters():
            p.grad = None
        module.skip_update = True
        if not module.nonfinite_skips:
            log.warning(
                "on_nonfinite=skip: %s is not finite at %s: update skipped (train/nonfinite_skips counts them)",
                problem,
                where,
            )

    def on_safe_point(self, trainer: pl.Trainer, module, stopping: bool) -> None:
        """Parameters, when an evaluation or the run's end comes next (every rank alike: their env steps agree)."""
        if module.env_steps >= min(module.next_eval, module.total_env_steps):
            self.on_before_checkpoint(trainer, module)

    def on_before_checkpoint(self, trainer: pl.Trainer, module) -> None:
        """Parameters, before ``Checkpoints`` writes the run state (every rank of a ddp run saves at once)."""
        problem = first_nonfinite({f"parameter {n}": p for n, p in module.net.named_parameters()})
        if problem is not None:
            self._stop(
                trainer,
                module,
                f"{problem} is not finite after update {module.updates:,} (env step {module.env_steps:,})",
            )

    def _stop(self, trainer: pl.Trainer, module, what: str) -> None:
        path = self.checkpoints.save_without_replay(trainer, module, "nonfinite.ckpt")
        raise NonFiniteError(
            f"{what}; the state is in {path}"
            " (on_nonfinite=skip skips such updates; a lower optim.lr or trainer.gradient_clip_val may avoid them)"
        )
