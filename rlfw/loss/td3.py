"""TD3 (Fujimoto et al. 2018): clipped double-Q with target policy smoothing, the actor updated every
``policy_delay`` updates. DDPG (Lillicrap et al. 2016) is this loss with one critic, no smoothing and
a delay of 1: ``conf/algo/ddpg.yaml``.

    a'       = clip(mu_target(s') + clip(eps, -noise_clip, noise_clip) * scale, low, high),  eps ~ N(0, policy_noise^2)
    y        = r + gamma^n (1 - terminated) min_i Q_target,i(s', a')
    L_critic = sum_i mean (Q_i(s, a) - y)^2
    L_actor  = -mean Q_1(s, mu(s)),   the critics frozen; only every policy_delay-th update

Prioritized replay weights and prioritizes samples as in SAC (``rlfw.loss.sac.critic_loss``). y is
computed under ``no_grad``; the actor's loss reads the critic with its parameters detached, so
each part gets only its own gradient. Between the actor's updates its loss is left out: its weights
get no gradient, and the optimizer leaves them alone. The target networks move only together with
the actor (``targets_with``), as in Fujimoto et al.'s Algorithm 1, SB3 and CleanRL.
"""

from __future__ import annotations

import torch

from rlfw.batch import Batch
from rlfw.errors import require
from rlfw.loss.contract import LossHead
from rlfw.loss.sac import critic_loss
from rlfw.loss.td import td_target
from rlfw.network.head import CriticHead
from rlfw.registry import register


@register("loss", "td3")
class TD3Loss(LossHead):
    needs = frozenset({"action"})
    needs_critic = True
    needs_batch = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    needs_target = True
    targets_with = "loss_actor"  # the target rule steps only on the updates that train the actor
    signals = frozenset({"td_error"})
    schedulable = frozenset({"policy_noise", "noise_clip"})
    calls: torch.Tensor

    def __init__(self, policy_noise: float = 0.2, noise_clip: float = 0.5, policy_delay: int = 2):
        super().__init__()
        require(policy_noise >= 0, "loss.policy_noise", policy_noise, "the target policy's noise std, >= 0 (0: DDPG)")
        require(noise_clip >= 0, "loss.noise_clip", noise_clip, "must be >= 0")
        require(policy_delay >= 1, "loss.policy_delay", policy_delay, "critic updates per actor update, >= 1")
        self.policy_noise, self.noise_clip, self.policy_delay = policy_noise, noise_clip, policy_delay
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))  # in the checkpoint: a resume keeps the rhythm

    def forward(self, batch: Batch, net: CriticHead, target: CriticHead) -> dict[str, torch.Tensor]:
        self.calls += 1
        with torch.no_grad():
            next_action = target.mode(target(batch.next_obs))
            noise = (torch.randn_like(next_action) * self.policy_noise).clamp(-self.noise_clip, self.noise_clip)
            low, high = target.bias - target.scale, target.bias + target.scale
            next_action = torch.max(torch.min(next_action + noise * target.scale, high), low)
            next_q = target.q_sa(batch.next_obs, next_action).min(dim=0).values
            y = td_target(batch, next_q)
        q = net.q_sa(batch.obs, batch.action)
        batch.signal("td_error", (q - y).mean(dim=0))
        terms = {"loss_critic": critic_loss(q, y, batch), "q_taken": q.detach().mean()}
        if int(self.calls) % self.policy_delay == 0:
            terms["loss_actor"] = self.actor_loss(batch, net)
        return terms

    def actor_loss(self, batch: Batch, net: CriticHead) -> torch.Tensor:
        """-mean Q_1(s, mu(s)), the critic frozen."""
        return -net.q_sa(batch.obs, net.mode(net(batch.obs)), frozen=True)[0].mean()
