"""DQN's temporal-difference loss (Mnih et al. 2015)."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from rlfw.batch import Batch
from rlfw.errors import require
from rlfw.loss.contract import LossHead
from rlfw.loss.td import td_target
from rlfw.network.head import Head
from rlfw.registry import register


@register("loss", "dqn")
class DQNLoss(LossHead):
    """L = mean_i w_i * l(Q(s_i, a_i) - y_i), with the target

        y = r + gamma^n * (1 - terminated) * max_a' Q_target(s', a')

    computed under ``no_grad`` (no gradient flows into the target), and only Q(s, a) of the action
    taken gathered from the online network (the other actions' outputs get zero gradient). The max is
    over the actions open in s' where the observations carry them (the head closes the others).
    ``td_loss``: ``mse`` is 1/2 td^2; ``huber`` is quadratic for |td| <= clip_delta and linear
    beyond, so each sample's gradient is td clipped to [-clip_delta, clip_delta] (DQN 3.0's
    ``clip_delta``). ``w_i`` are prioritized replay's importance weights (1 without them); the signal
    ``td_error`` gives it each sample's new priority.
    """

    needs = frozenset({"q"})
    needs_batch = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    needs_target = True
    signals = frozenset({"td_error"})
    schedulable = frozenset({"clip_delta"})

    def __init__(self, td_loss: str = "huber", clip_delta: float = 1.0):
        super().__init__()
        require(td_loss in ("mse", "huber"), "loss.td_loss", td_loss, "one of mse, huber")
        require(clip_delta > 0, "loss.clip_delta", clip_delta, "must be > 0")
        self.td_loss, self.clip_delta = td_loss, clip_delta

    def next_q(self, batch: Batch, net: Head, target: Head) -> torch.Tensor:
        """max_a' Q_target(s', a'): the target network both picks and evaluates."""
        return target(batch.next_obs)["q"].max(dim=1).values

    def forward(self, batch: Batch, net: Head, target: Head) -> dict[str, torch.Tensor]:
        q = net(batch.obs)["q"].gather(1, batch.action.long().unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            y = td_target(batch, self.next_q(batch, net, target))
        batch.signal("td_error", q - y)
        return self.td(q, y, batch.get("weight"))

    def td(self, q: torch.Tensor, y: torch.Tensor, weight: torch.Tensor | None) -> dict[str, torch.Tensor]:
        """The loss of Q values ``q`` against their targets ``y``; ``weight``: prioritized replay's."""
        td_error = q - y
        if self.td_loss == "mse":
            per_sample = 0.5 * td_error.pow(2)
        else:
            per_sample = F.huber_loss(q, y, reduction="none", delta=self.clip_delta)
        if weight is not None:  # prioritized replay's importance weights
            per_sample = weight * per_sample
        return {"loss_td": per_sample.mean(), "q_taken": q.detach().mean()}
