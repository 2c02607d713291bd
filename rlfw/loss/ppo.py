"""Proximal policy optimisation, clipped surrogate (Schulman et al. 2017)."""

from __future__ import annotations

import torch
from torch import nn

from rlfw.batch import Batch, mean
from rlfw.errors import require
from rlfw.loss.actor_critic import entropy_bonus, read_policy, value_loss
from rlfw.loss.contract import LossHead
from rlfw.network.head import PolicyHead
from rlfw.registry import register


@register("loss", "ppo")
class PPOLoss(LossHead):
    """With ratio = pi(a|s) / pi_old(a|s):

        L = -mean(min(ratio * A, clip(ratio, 1 - clip, 1 + clip) * A))
            + vf_coef * value loss (optionally clipped around V_old) - ent_coef * H[pi(.|s)]

    Every mean is over the rows that acted (``rlfw.batch.acting``). Metrics: approx_kl =
    mean((ratio - 1) - log ratio) (Schulman's low-variance estimator) and clip_fraction. With
    ``target_kl``, the signal ``stop_epochs`` skips the rollout's remaining epochs once approx_kl exceeds it.
    """

    needs = frozenset({"value"})
    needs_distribution = True  # pi(.|s) from the head, for any action space
    needs_batch = frozenset({"obs", "action", "logp", "value", "advantage", "returns"})
    needs_target = False
    reads_acting = True
    signals = frozenset({"stop_epochs"})
    schedulable = frozenset({"clip", "vf_coef", "ent_coef"})

    def __init__(
        self,
        clip: float = 0.2,
        clip_value: float | None = None,
        vf_coef: float = 0.5,
        ent_coef: float = 0.0,
        target_kl: float | None = None,
    ):
        super().__init__()
        require(clip > 0, "loss.clip", clip, "must be > 0")
        require(clip_value is None or clip_value > 0, "loss.clip_value", clip_value, "null or > 0")
        require(target_kl is None or target_kl > 0, "loss.target_kl", target_kl, "null or > 0")
        require(vf_coef >= 0, "loss.vf_coef", vf_coef, "must be >= 0")
        require(ent_coef >= 0, "loss.ent_coef", ent_coef, "must be >= 0 (an entropy bonus)")
        self.clip, self.clip_value, self.target_kl = clip, clip_value, target_kl
        self.vf_coef, self.ent_coef = vf_coef, ent_coef

    def forward(self, batch: Batch, net: PolicyHead, target: nn.Module | None = None) -> dict[str, torch.Tensor]:
        pi = read_policy(batch, net)
        log_ratio = pi.logp - batch.logp
        ratio = log_ratio.exp()
        # min(ratio A, clip(ratio, 1 - clip, 1 + clip) A). Where the clipped term is the smaller its ratio is
        # outside the range, so it carries no gradient: made without one, and one where() picks (fewer ops
        # forward and backward than min's and clamp's, the same gradient)
        unclipped = ratio * batch.advantage
        with torch.no_grad():
            clipped = ratio.clamp(1 - self.clip, 1 + self.clip) * batch.advantage
        surrogate = torch.where(unclipped <= clipped, unclipped, clipped)
        with torch.no_grad():
            approx_kl = mean((ratio - 1) - log_ratio, pi.rows)
            clip_fraction = mean(((ratio - 1).abs() > self.clip).float(), pi.rows)
        if self.target_kl is not None:
            batch.signal("stop_epochs", approx_kl > self.target_kl)
        value = value_loss(pi.out["value"], batch.returns, batch.value, self.clip_value, pi.rows)
        return {
            "loss_policy": -mean(surrogate, pi.rows),
            "loss_value": self.vf_coef * value,
            **entropy_bonus(pi.entropy, self.ent_coef),
            "approx_kl": approx_kl,
            "clip_fraction": clip_fraction,
        }
