"""Soft actor-critic (Haarnoja et al. 2018), with the temperature learned to a target entropy.

    y        = r + gamma^n (1 - terminated) (min_i Q_target,i(s', a') - alpha log pi(a'|s')),  a' ~ pi(.|s')
    L_critic = sum_i mean (Q_i(s, a) - y)^2
    L_actor  = mean (alpha log pi(a~|s) - min_i Q_i(s, a~)),   a~ ~ pi(.|s) reparameterized, the Q_i frozen
    L_alpha  = -mean log(alpha) (log pi(a~|s) + target_entropy),   target_entropy = -|A| by default

With prioritized replay each sample's critic loss is weighted by its importance weight, and its
priority follows |mean_i Q_i(s, a) - y| (the signal ``td_error``). y is computed under ``no_grad``; the actor's
loss reads the critics with their parameters detached and the critics' loss reads no actor output, so
in one backward each part gets only its own gradient.
log(alpha) is this loss's parameter: the optimizer's part ``loss`` (``optim.groups.loss.lr``).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.loss.contract import LossHead
from rlfw.loss.td import td_target
from rlfw.network.head import SoftActorCriticHead
from rlfw.registry import register


def critic_loss(q: torch.Tensor, y: torch.Tensor, batch: Batch) -> torch.Tensor:
    """sum_i mean_b w_b (Q_i(s_b, a_b) - y_b)^2 for ``q`` of shape [n, B]; w: prioritized replay's
    importance weights, 1 without them."""
    per_sample = (q - y).pow(2)
    if "weight" in batch:
        per_sample = batch.weight * per_sample
    return per_sample.mean(dim=1).sum()


@register("loss", "sac")
class SACLoss(LossHead):
    needs = frozenset({"mean", "log_std"})
    needs_distribution = True
    needs_critic = True
    needs_batch = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    needs_target = True
    signals = frozenset({"td_error"})

    def __init__(
        self, spec: EnvSpec, alpha: float = 1.0, learn_alpha: bool = True, target_entropy: float | None = None
    ):
        super().__init__()
        require(alpha > 0, "loss.alpha", alpha, "the (initial) temperature, > 0")
        self.log_alpha = nn.Parameter(torch.tensor(math.log(alpha)), requires_grad=learn_alpha)
        dims = math.prod(spec.action_space.shape or (1,))
        self.target_entropy = -float(dims) if target_entropy is None else target_entropy

    def forward(self, batch: Batch, net: SoftActorCriticHead, target: SoftActorCriticHead) -> dict[str, torch.Tensor]:
        alpha = self.log_alpha.exp().detach()
        with torch.no_grad():
            next_action, next_logp = net.distribution(net(batch.next_obs)).rsample_with_log_prob()
            next_q = target.q_sa(batch.next_obs, next_action).min(dim=0).values - alpha * next_logp
            y = td_target(batch, next_q)
        q = net.q_sa(batch.obs, batch.action)
        action, logp = net.distribution(net(batch.obs)).rsample_with_log_prob()
        q_pi = net.q_sa(batch.obs, action, frozen=True).min(dim=0).values
        batch.signal("td_error", (q - y).mean(dim=0))
        terms = {
            "loss_critic": critic_loss(q, y, batch),
            "loss_actor": (alpha * logp - q_pi).mean(),
            "alpha": alpha,
            "entropy": -logp.detach().mean(),
            "q_taken": q.detach().mean(),
        }
        if self.log_alpha.requires_grad:
            terms["loss_alpha"] = -(self.log_alpha * (logp.detach() + self.target_entropy)).mean()
        return terms
