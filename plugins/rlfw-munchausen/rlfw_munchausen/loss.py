"""Munchausen-DQN (Vieillard, Pietquin and Geist 2020, "Munchausen Reinforcement Learning", eq. 2 and
the clipping of section 3) as a loss head over rlfw's DQN loss."""

import torch
from torch import nn

from rlfw import register
from rlfw.batch import Batch
from rlfw.errors import require
from rlfw.loss.dqn import DQNLoss


@register("loss", "munchausen_dqn")
class MunchausenLoss(DQNLoss):
    """DQN's TD loss with a soft, self-rewarding target. With pi = softmax(q_target / tau):

        y = r + alpha * clip(tau * log pi(a|s), l0, 0)
              + gamma^n * (1 - terminated) * sum_a' pi(a'|s') * (q_target(s', a') - tau * log pi(a'|s'))

    The last sum is the soft value tau * logsumexp(q_target(s', .) / tau). Everything in y is
    computed without gradient; ``td_loss``, ``clip_delta`` and importance weights are DQN's.
    """

    def __init__(
        self, alpha: float = 0.9, tau: float = 0.03, l0: float = -1.0, td_loss: str = "huber", clip_delta: float = 1.0
    ):
        super().__init__(td_loss, clip_delta)
        require(0 <= alpha <= 1, "loss.alpha", alpha, "must be in [0, 1]")
        require(tau > 0, "loss.tau", tau, "must be > 0 (the entropy temperature)")
        require(l0 < 0, "loss.l0", l0, "must be < 0 (the lower clip of tau * log pi)")
        self.alpha, self.tau, self.l0 = alpha, tau, l0

    def tau_log_pi(self, q: torch.Tensor) -> torch.Tensor:
        return q - self.tau * torch.logsumexp(q / self.tau, dim=1, keepdim=True)

    def next_q(self, batch: Batch, net: nn.Module, target: nn.Module) -> torch.Tensor:
        """The soft value of s' under the target network's softmax policy."""
        return self.tau * torch.logsumexp(target(batch.next_obs)["q"] / self.tau, dim=1)

    def forward(self, batch: Batch, net: nn.Module, target: nn.Module) -> dict[str, torch.Tensor]:
        with torch.no_grad():  # the Munchausen bonus: the scaled, clipped log-policy of the action taken
            taken = self.tau_log_pi(target(batch.obs)["q"]).gather(1, batch.action.long().unsqueeze(1)).squeeze(1)
            bonus = self.alpha * taken.clamp(self.l0, 0.0)
        return super().forward(batch.replace(reward=batch.reward + bonus), net, target)
