"""One update, in one function: the loss head's terms and their sum, backward, the non-finite check,
clipping, the optimizer step, the learning-rate schedule and the target rule.

    terms      = loss(batch, net, target)               # the loss head: {"loss_*": ..., metrics}
    L          = sum of terms["loss_*"] / accumulate    # accumulate: batches per optimizer step
    backward(L)                                         # Lightning's manual_backward: precision, ddp's sync
    |g|        = one norm over the optimizer's gradients, taken once the window's batches are in
    finite(L) and finite(|g|), else drop the gradients  (on_nonfinite: the caller stops or skips)
    clip g     to |g| <= clip (or each element to +-clip)
    optimizer step, learning-rate schedule, target rule (only with its term, if the loss names one)

The caller (``RLModule.training_step``) hands each batch in; the returned ``UpdateResult`` says what
happened to it. Nothing passes between calls but the accumulation window, held by the ``Learner``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from rlfw.batch import Batch
from rlfw.loss.contract import LossHead
from rlfw.network.head.contract import NetworkHead
from rlfw.target.contract import TargetRule


def first_nonfinite(named: dict[str, torch.Tensor]) -> str | None:
    """The first name whose tensor has a non-finite element, checked with one fused norm first (the
    norm of huge finite values can overflow: then each tensor is checked, and all may be finite)."""
    tensors = [t.detach() for t in named.values()]
    if not tensors or torch.isfinite(torch.nn.utils.get_total_norm(tensors)):
        return None
    return next((name for name, t in named.items() if not torch.isfinite(t.detach()).all()), None)


@dataclass
class Learner:
    """The parts an update uses, and the accumulation window in progress."""

    net: NetworkHead
    target_net: NetworkHead | None
    loss: LossHead
    target_rule: TargetRule
    optimizer: torch.optim.Optimizer
    scheduler: torch.optim.lr_scheduler.LRScheduler | None
    backward: Callable[[torch.Tensor], None]  # Lightning's manual_backward
    feedback: Callable[[Batch], None]  # the replay's: it hears the loss's signals (priorities, PPO's early stop)
    scaler: torch.amp.GradScaler | None = None  # 16-mixed's loss scaling
    clip: float | None = None  # trainer.gradient_clip_val
    clip_by_value: bool = False  # trainer.gradient_clip_algorithm=value
    accumulate: int = 1  # trainer.accumulate_grad_batches
    window: int = 0  # batches backpropagated since the last optimizer step
    finite: torch.Tensor = field(default_factory=lambda: torch.tensor(True))  # every loss of the window so far
    losses: dict[str, torch.Tensor] = field(default_factory=dict)  # the window's last loss_* terms, to name one

    @property
    def params(self) -> list[torch.Tensor]:
        return [p for group in self.optimizer.param_groups for p in group["params"]]


@dataclass(frozen=True)
class UpdateResult:
    terms: dict[str, torch.Tensor]  # the loss head's terms for this batch
    loss: torch.Tensor  # their loss_* sum
    stepped: bool  # the optimizer stepped: this batch closed a window and everything was finite
    grad_norm: torch.Tensor | None = None  # the gradient's norm before clipping, where a window closed
    nonfinite: str | None = None  # what was not finite (the window's gradients were dropped)


def update(learner: Learner, batch: Batch, number: int) -> UpdateResult:
    """Trains on ``batch``; when it closes an accumulation window, steps as update number ``number``."""
    terms = learner.loss(batch, learner.net.unrolled(batch), learner.target_net)  # a recurrent net over its columns
    loss = sum(v for k, v in terms.items() if k.startswith("loss_"))
    assert isinstance(loss, torch.Tensor), "a loss head returns at least one loss_* term"
    learner.feedback(batch)
    learner.backward(loss / learner.accumulate)
    learner.finite = learner.finite.to(loss.device) & torch.isfinite(loss.detach())
    learner.losses = {k: v for k, v in terms.items() if k.startswith("loss_")}
    learner.window += 1
    if learner.window < learner.accumulate:
        return UpdateResult(terms, loss.detach(), stepped=False)
    learner.window = 0
    norm, problem = checked_norm(learner)
    learner.finite = torch.tensor(True)
    if problem is not None:
        learner.optimizer.zero_grad(set_to_none=True)
        if learner.scaler is not None:
            learner.scaler.update()  # lowers the scale, as a skipped step under loss scaling does
        return UpdateResult(terms, loss.detach(), stepped=False, grad_norm=norm, nonfinite=problem)
    if learner.clip:
        clip(learner, learner.clip, norm)
    if learner.scaler is not None:
        learner.scaler.step(learner.optimizer)
        learner.scaler.update()
    else:
        learner.optimizer.step()
    learner.optimizer.zero_grad(set_to_none=True)
    if learner.scheduler is not None:
        learner.scheduler.step()
    with_term = learner.loss.targets_with  # TD3: its targets follow the delayed actor
    if learner.target_net is not None and (with_term is None or with_term in terms):
        learner.target_rule.step(learner.net, learner.target_net, number)
    return UpdateResult(terms, loss.detach(), stepped=True, grad_norm=norm)


def checked_norm(learner: Learner) -> tuple[torch.Tensor, str | None]:
    """The gradients' norm (unscaled first under loss scaling), and what was not finite: None when the
    window's losses and the norm were, with one host sync for both (a norm is finite exactly when every
    element is, short of overflow in the square sum)."""
    if learner.scaler is not None:
        learner.scaler.unscale_(learner.optimizer)
    grads = [p.grad for p in learner.params if p.grad is not None]
    norm = torch.nn.utils.get_total_norm(grads)
    if bool(learner.finite.to(norm.device) & torch.isfinite(norm)):
        return norm, None
    loss_problem = first_nonfinite(learner.losses)
    if loss_problem is not None or not bool(learner.finite):
        return norm, loss_problem or "the loss"
    named = {f"gradient of {n}": p.grad for n, p in named_parameters(learner) if p.grad is not None}
    return norm, first_nonfinite(named) or "the gradient's norm"


def named_parameters(learner: Learner) -> list[tuple[str, torch.Tensor]]:
    """The optimizer's parameters by name: the network's, then the loss's own (SAC's temperature)."""
    return [*learner.net.named_parameters(), *(("loss." + n, p) for n, p in learner.loss.named_parameters())]


def clip(learner: Learner, limit: float, norm: torch.Tensor) -> None:
    """Clips by the norm already taken (one pass over the gradients, not two), or each element by value."""
    if learner.clip_by_value:
        torch.nn.utils.clip_grad_value_(learner.params, limit)
    else:
        torch.nn.utils.clip_grads_with_norm_(learner.params, limit, norm)
