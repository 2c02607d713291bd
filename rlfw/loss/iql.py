"""Implicit Q-learning (Kostrikov et al. 2022, "Offline Reinforcement Learning with Implicit Q-Learning"):
a state value fitted as an expectile of the data's Q values, critics trained toward it, and an actor
that clones the data's actions weighted by their advantage. No action outside the data is ever queried.

    L_V      = mean |tau - 1(u < 0)| u^2,                      u = min_i Q_target,i(s, a) - V(s)
    L_critic = sum_i mean (Q_i(s, a) - y)^2,                   y = r + gamma^n (1 - terminated) V(s')
    L_actor  = -mean min(exp(beta (min_i Q_target,i(s, a) - V(s))), max_weight) log pi(a | s)

``a`` is the dataset's action. V(s) is this loss's own network (the optimizer's part ``loss``); y, the
weights and V's regression target are computed without gradient, so each part gets only its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.loss.contract import LossHead
from rlfw.loss.sac import critic_loss
from rlfw.loss.td import td_target
from rlfw.network.encoder.mlp import MLP
from rlfw.network.head import SoftActorCriticHead
from rlfw.network.precision import Precision
from rlfw.registry import register


@register("loss", "iql")
class IQLLoss(LossHead):
    needs_distribution = True
    needs_critic = True
    needs_batch = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    needs_target = True
    schedulable = frozenset({"tau", "beta"})

    def __init__(
        self,
        spec: EnvSpec,
        tau: float = 0.7,
        beta: float = 3.0,
        max_weight: float = 100.0,
        value_hidden: Sequence[int] = (256, 256),
        precision: Precision | None = None,
    ):
        super().__init__()
        require(0 < tau < 1, "loss.tau", tau, "the expectile, in (0, 1) (0.5: the mean; the paper's 0.7)")
        require(beta >= 0, "loss.beta", beta, "the inverse temperature of the advantage weights, >= 0")
        require(max_weight > 0, "loss.max_weight", max_weight, "the advantage weights' cap, > 0")
        require(len(spec.obs_shape) == 1, "loss", "iql", "V(s) is an MLP: vector observations only")
        trunk = MLP(spec, value_hidden, "relu", precision)  # computes as the network does
        self.value = nn.Sequential(trunk, nn.Linear(trunk.out_dim, 1))
        self.tau, self.beta, self.max_weight = tau, beta, max_weight

    def forward(self, batch: Batch, net: SoftActorCriticHead, target: SoftActorCriticHead) -> dict[str, torch.Tensor]:
        with torch.no_grad():
            q_target = target.q_sa(batch.obs, batch.action).min(dim=0).values
            y = td_target(batch, self.value(batch.next_obs).squeeze(-1))
        v = self.value(batch.obs).squeeze(-1)
        u = q_target - v
        loss_value = (torch.abs(self.tau - (u < 0).float()) * u.pow(2)).mean()
        weight = torch.exp(self.beta * u.detach()).clamp(max=self.max_weight)
        logp = net.distribution(net(batch.obs)).log_prob(batch.action)
        q = net.q_sa(batch.obs, batch.action)
        return {
            "loss_value": loss_value,
            "loss_critic": critic_loss(q, y, batch),
            "loss_actor": -(weight * logp).mean(),
            "advantage": u.detach().mean(),
            "q_taken": q.detach().mean(),
        }
