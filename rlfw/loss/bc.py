"""Behaviour cloning: the policy's log-likelihood of the dataset's actions.

    L_bc = -mean log pi(a | s)

``a`` is the action the data took in ``s``; pi is the head's distribution (a softmax over discrete
actions, a squashed Gaussian over continuous ones), so one equation serves both.
"""

from __future__ import annotations

import torch

from rlfw.batch import Batch
from rlfw.loss.contract import LossHead
from rlfw.network.head import PolicyHead
from rlfw.registry import register


@register("loss", "bc")
class BCLoss(LossHead):
    needs_distribution = True
    needs_batch = frozenset({"obs", "action"})

    def forward(self, batch: Batch, net: PolicyHead, target: None) -> dict[str, torch.Tensor]:
        logp = net.distribution(net(batch.obs)).log_prob(batch.action)
        return {"loss_bc": -logp.mean()}
