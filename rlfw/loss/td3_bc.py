"""TD3+BC (Fujimoto & Gu 2021, "A Minimalist Approach to Offline Reinforcement Learning"): TD3's critics
and delayed actor, the actor kept near the data's actions by one behaviour-cloning term.

    lambda   = alpha / mean_b |Q_1(s_b, mu(s_b))|          (no gradient: it only sets the scale)
    L_actor  = -lambda mean Q_1(s, mu(s)) + mean ((mu(s) - a) / scale)^2

``a`` is the dataset's action; both actions are measured in units of the action range's half-width
(``scale``), as the paper's [-1, 1] actions are. The critics' loss is TD3's (``rlfw.loss.td3``).
"""

from __future__ import annotations

import torch

from rlfw.batch import Batch
from rlfw.errors import require
from rlfw.loss.td3 import TD3Loss
from rlfw.network.head import CriticHead
from rlfw.registry import register


@register("loss", "td3_bc")
class TD3BCLoss(TD3Loss):
    schedulable = TD3Loss.schedulable | {"alpha"}

    def __init__(self, alpha: float = 2.5, policy_noise: float = 0.2, noise_clip: float = 0.5, policy_delay: int = 2):
        super().__init__(policy_noise, noise_clip, policy_delay)
        require(alpha > 0, "loss.alpha", alpha, "the weight of Q against behaviour cloning, > 0 (the paper's 2.5)")
        self.alpha = alpha

    def actor_loss(self, batch: Batch, net: CriticHead) -> torch.Tensor:
        action = net.mode(net(batch.obs))
        q = net.q_sa(batch.obs, action, frozen=True)[0]
        lam = self.alpha / q.abs().mean().detach()
        return -lam * q.mean() + ((action - batch.action) / net.scale).pow(2).mean()
