"""Conservative Q-learning (Kumar et al. 2020), on SAC's parts: SAC's loss plus one term that pushes the
critics down on actions the policy or chance would pick and up on the data's.

    L_cql = alpha_cql sum_i mean_b ( log sum_j exp(Q_i(s, a_j) - log p(a_j)) - Q_i(s, a) )

where the a_j are ``n_actions`` uniform random actions (density p = 1 / volume of the action box) and
``n_actions`` actions of pi at s and at s' (their own log pi), all evaluated at s: the paper's CQL(H) with
importance sampling, as CORL and d3rlpy write it. ``a`` is the dataset's action. The rest is SAC's
(``rlfw.loss.sac``): critics, actor, temperature.
"""

from __future__ import annotations

import math

import torch

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.loss.sac import SACLoss
from rlfw.network.head import SoftActorCriticHead
from rlfw.registry import register


@register("loss", "cql")
class CQLLoss(SACLoss):
    schedulable = frozenset({"alpha_cql"})

    def __init__(
        self,
        spec: EnvSpec,
        alpha_cql: float = 5.0,
        n_actions: int = 10,
        alpha: float = 1.0,
        learn_alpha: bool = True,
        target_entropy: float | None = None,
    ):
        super().__init__(spec, alpha, learn_alpha, target_entropy)
        require(alpha_cql >= 0, "loss.alpha_cql", alpha_cql, "the conservative term's weight, >= 0 (0: SAC)")
        require(n_actions >= 1, "loss.n_actions", n_actions, "actions sampled per state for each kind, >= 1")
        self.alpha_cql, self.n_actions = alpha_cql, n_actions

    def forward(self, batch: Batch, net: SoftActorCriticHead, target: SoftActorCriticHead) -> dict[str, torch.Tensor]:
        terms = super().forward(batch, net, target)
        n, size = self.n_actions, len(batch.obs)
        obs = batch.obs.repeat_interleave(n, dim=0)  # each state n times, [B * n, ...]
        with torch.no_grad():  # pi's actions at s and at s', n of each: one forward over the 2B states
            out = net(torch.cat([batch.obs, batch.next_obs]))
            out = {k: v.repeat_interleave(n, dim=0) for k, v in out.items()}  # [2 * B * n, ...]
            policy, logp = net.distribution(out).rsample_with_log_prob()
        uniform = (torch.rand(len(obs), policy.shape[1], device=policy.device) * 2 - 1) * net.scale + net.bias
        log_uniform = -torch.log(2 * net.scale).sum().expand(len(obs))  # the uniform density over the action box
        # the three kinds at s in one critic call (larger matrix products than three): [critics, 3 * B * n]
        q = net.q_sa(torch.cat([obs] * 3), torch.cat([uniform, policy])) - torch.cat([log_uniform, logp])
        q_all = q.view(len(q), 3, size, n).transpose(1, 2).reshape(len(q), size, 3 * n)  # [critics, B, 3n]
        pushed_down = torch.logsumexp(q_all, dim=2) - math.log(3 * n)
        q_data = net.q_sa(batch.obs, batch.action)
        terms["loss_conservative"] = self.alpha_cql * (pushed_down - q_data).mean(dim=1).sum()
        terms["q_gap"] = (pushed_down - q_data).detach().mean()
        return terms
