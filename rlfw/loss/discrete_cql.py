"""Conservative Q-learning for discrete actions (Kumar et al. 2020; d3rlpy's DiscreteCQL), on Double DQN's
loss: the TD loss plus one term that pushes every action's Q down and the data's action's up.

    L_cql = alpha mean_b ( log sum_a' exp Q(s, a') - Q(s, a) )

``a`` is the dataset's action; the TD part is Double DQN's (``rlfw.loss.double_dqn``), as in d3rlpy.
"""

from __future__ import annotations

import torch

from rlfw.batch import Batch
from rlfw.errors import require
from rlfw.loss.double_dqn import DoubleDQNLoss
from rlfw.network.head import Head
from rlfw.registry import register


@register("loss", "discrete_cql")
class DiscreteCQLLoss(DoubleDQNLoss):
    schedulable = DoubleDQNLoss.schedulable | {"alpha"}

    def __init__(self, alpha: float = 1.0, td_loss: str = "huber", clip_delta: float = 1.0):
        super().__init__(td_loss, clip_delta)
        require(alpha >= 0, "loss.alpha", alpha, "the conservative term's weight, >= 0 (0: Double DQN)")
        self.alpha = alpha

    def forward(self, batch: Batch, net: Head, target: Head) -> dict[str, torch.Tensor]:
        terms = super().forward(batch, net, target)
        q = net(batch.obs)["q"]
        gap = torch.logsumexp(q, dim=1) - q.gather(1, batch.action.long().unsqueeze(1)).squeeze(1)
        terms["loss_conservative"] = self.alpha * gap.mean()
        terms["q_gap"] = gap.detach().mean()
        return terms
