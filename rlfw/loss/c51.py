"""C51's loss (Bellemare et al. 2017, Algorithm 1): cross-entropy between the projected distributional
Bellman target and the return distribution of the action taken."""

from __future__ import annotations

import torch

from rlfw.batch import Batch
from rlfw.loss.contract import LossHead
from rlfw.network.head.categorical_q import CategoricalQ
from rlfw.registry import register


@register("loss", "c51")
class C51Loss(LossHead):
    """Over the head's atoms z_1..z_N (spacing dz), all under ``no_grad`` but the last line:

        a*    = argmax_a Q_target(s', a)      (double=true: argmax_a Q(s', a), the online net picks)
        Tz_j  = clamp(r + gamma^n (1 - terminated) z_j, v_min, v_max)
        b_j   = (Tz_j - v_min) / dz,  l = floor(b_j),  u = ceil(b_j)
        m_l  += p_target(s', a*)_j * (u - b_j),  m_u += p_target(s', a*)_j * (b_j - l)
        L     = mean_b w_b * -sum_i m_i log p_i(s_b, a_b)

    The projection m gives each Tz_j's probability to its two neighbouring atoms in proportion to how
    close it lies to each; where Tz_j falls on an atom (l = u), that atom gets all of it. Only the
    action taken gets gradient. The signal ``td_error``, prioritized replay's priority, is KL(m || p(s, a))
    per sample, as in Rainbow (Hessel et al. 2018); ``w_b`` are its importance weights (1 without them).
    """

    needs = frozenset({"log_pmf"})
    needs_batch = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    needs_target = True
    signals = frozenset({"td_error"})

    def __init__(self, double: bool = False):
        super().__init__()
        self.double_target = double  # not self.double: nn.Module.double() casts to float64

    def forward(self, batch: Batch, net: CategoricalQ, target: CategoricalQ) -> dict[str, torch.Tensor]:
        taken = batch.action.long().view(-1, 1, 1).expand(-1, 1, net.num_atoms)
        log_p = net(batch.obs)["log_pmf"].gather(1, taken).squeeze(1)  # [B, N]
        with torch.no_grad():
            m = self.projected_target(batch, net, target)
        per_sample = -(m * log_p).sum(dim=1)
        kl = per_sample + (m * m.clamp(min=1e-12).log()).sum(dim=1)  # cross-entropy minus m's entropy
        if "weight" in batch:  # prioritized replay's importance weights
            per_sample = batch.weight * per_sample
        batch.signal("td_error", kl)
        q_taken = (log_p.detach().exp() * net.support).sum(dim=1)
        return {"loss_distribution": per_sample.mean(), "q_taken": q_taken.mean()}

    def projected_target(self, batch: Batch, net: CategoricalQ, target: CategoricalQ) -> torch.Tensor:
        """m: the target distribution r + gamma^n (1 - terminated) Z(s', a*) projected onto the atoms."""
        z = target.support
        next_out = target(batch.next_obs)  # a*: among the actions open in s' (the head closes the others)
        picker = (net(batch.next_obs) if self.double_target else next_out)["q"]
        best = picker.argmax(dim=1).view(-1, 1, 1).expand(-1, 1, len(z))
        p_next = next_out["log_pmf"].gather(1, best).squeeze(1).exp()  # [B, N_j]
        tz = batch.reward[:, None] + (batch.discount * (1.0 - batch.terminated.float()))[:, None] * z[None, :]
        tz = tz.clamp(target.v_min, target.v_max)
        dz = (target.v_max - target.v_min) / (len(z) - 1)
        b = ((tz - target.v_min) / dz).clamp(0, len(z) - 1)  # clamped: rounding may pass the last atom
        lower, upper = b.floor().long(), b.ceil().long()
        m = torch.zeros_like(p_next)
        m.scatter_add_(1, lower, p_next * (upper - b + (lower == upper)))
        return m.scatter_add_(1, upper, p_next * (b - lower))
