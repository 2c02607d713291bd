"""Double DQN (van Hasselt et al. 2016): the online net picks a', the target net evaluates it."""

from __future__ import annotations

import torch

from rlfw.batch import Batch
from rlfw.loss.dqn import DQNLoss
from rlfw.network.head import Head
from rlfw.registry import register


@register("loss", "double_dqn")
class DoubleDQNLoss(DQNLoss):
    """As DQN, with y = r + gamma^n * (1 - terminated) * Q_target(s', argmax_a' Q(s', a'))."""

    def next_q(self, batch: Batch, net: Head, target: Head) -> torch.Tensor:
        next_action = net(batch.next_obs)["q"].argmax(dim=1, keepdim=True)
        return target(batch.next_obs)["q"].gather(1, next_action).squeeze(1)
