"""The quantile-regression TD loss of QR-DQN (Dabney et al. 2018, "Distributional Reinforcement
Learning with Quantile Regression", eq. 10)."""

import torch
import torch.nn.functional as F
from torch import nn

from rlfw import register
from rlfw.batch import Batch
from rlfw.errors import require
from rlfw.loss.contract import LossHead


@register("loss", "qr_dqn")
class QuantileHuberLoss(LossHead):
    """With N quantiles theta_i(s, a) at the midpoints tau_i = (2i + 1) / 2N (i = 0..N-1):

        y_j   = r + gamma^n * (1 - terminated) * theta_target_j(s', a*)            (no gradient)
        a*    = argmax_a mean_j theta_target_j(s', a); with double=true the online net picks a*
        u_ij  = y_j - theta_i(s, a)
        L     = mean_b w_b * sum_i mean_j |tau_i - 1{u_ij < 0}| * huber_kappa(u_ij) / kappa

    Only theta(s, a) of the action taken gets gradient. The signal ``td_error`` (the per-sample loss)
    feeds prioritized replay; ``w_b`` are its importance weights (1 without them); n-step returns come in
    through the batch's ``discount``.
    """

    needs = frozenset({"quantiles"})
    needs_batch = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    needs_target = True
    signals = frozenset({"td_error"})

    def __init__(self, kappa: float = 1.0, double: bool = False):
        super().__init__()
        require(kappa > 0, "loss.kappa", kappa, "must be > 0")
        self.kappa, self.double_target = kappa, double  # not self.double: nn.Module.double() casts to float64

    def forward(self, batch: Batch, net: nn.Module, target: nn.Module) -> dict[str, torch.Tensor]:
        quantiles = net(batch.obs)["quantiles"]  # [B, A, N]
        n = quantiles.shape[2]
        theta = quantiles.gather(1, batch.action.long().view(-1, 1, 1).expand(-1, 1, n)).squeeze(1)  # [B, N]
        with torch.no_grad():
            next_target = target(batch.next_obs)["quantiles"]
            picker = net(batch.next_obs)["q"] if self.double_target else next_target.mean(2)
            next_theta = next_target.gather(1, picker.argmax(1).view(-1, 1, 1).expand(-1, 1, n)).squeeze(1)
            y = batch.reward[:, None] + (batch.discount * (1.0 - batch.terminated.float()))[:, None] * next_theta
        u = y[:, None, :] - theta[:, :, None]  # [B, N_i, N_j]
        tau = (torch.arange(n, device=u.device, dtype=u.dtype) + 0.5) / n
        huber = F.huber_loss(
            theta[:, :, None].expand_as(u), y[:, None, :].expand_as(u), reduction="none", delta=self.kappa
        )
        per_sample = ((tau[None, :, None] - (u.detach() < 0).to(u.dtype)).abs() * huber / self.kappa).mean(2).sum(1)
        if "weight" in batch:  # prioritized replay's importance weights
            per_sample = batch.weight * per_sample
        batch.signal("td_error", per_sample)
        return {"loss_quantile": per_sample.mean(), "q_taken": theta.detach().mean()}
