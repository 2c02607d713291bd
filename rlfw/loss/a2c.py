"""Advantage actor-critic (Mnih et al. 2016, synchronous)."""

from __future__ import annotations

import torch
from torch import nn

from rlfw.batch import Batch, mean
from rlfw.errors import require
from rlfw.loss.actor_critic import entropy_bonus, read_policy, value_loss
from rlfw.loss.contract import LossHead
from rlfw.network.head import PolicyHead
from rlfw.registry import register


@register("loss", "a2c")
class A2CLoss(LossHead):
    """L = -mean(log pi(a|s) * A) + vf_coef * 1/2 (V(s) - R)^2 - ent_coef * H[pi(.|s)], each mean over the
    rows that acted (``rlfw.batch.acting``)."""

    needs = frozenset({"value"})
    needs_distribution = True  # pi(.|s) from the head, for any action space
    needs_batch = frozenset({"obs", "action", "advantage", "returns"})
    needs_target = False
    reads_acting = True
    schedulable = frozenset({"vf_coef", "ent_coef"})

    def __init__(self, vf_coef: float = 0.5, ent_coef: float = 0.0):
        super().__init__()
        require(vf_coef >= 0, "loss.vf_coef", vf_coef, "must be >= 0")
        require(ent_coef >= 0, "loss.ent_coef", ent_coef, "must be >= 0 (an entropy bonus)")
        self.vf_coef, self.ent_coef = vf_coef, ent_coef

    def forward(self, batch: Batch, net: PolicyHead, target: nn.Module | None = None) -> dict[str, torch.Tensor]:
        pi = read_policy(batch, net)
        return {
            "loss_policy": -mean(pi.logp * batch.advantage, pi.rows),
            "loss_value": self.vf_coef * value_loss(pi.out["value"], batch.returns, rows=pi.rows),
            **entropy_bonus(pi.entropy, self.ent_coef),
        }
