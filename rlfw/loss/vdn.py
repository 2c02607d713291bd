"""Value decomposition networks (Sunehag et al. 2018): a team's Q as the sum of its agents' own."""

from __future__ import annotations

import torch

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.loss.dqn import DQNLoss
from rlfw.network.head import Head
from rlfw.registry import register


@register("loss", "vdn")
class VDNLoss(DQNLoss):
    """DQN's loss on the team's Q, over the ``agents`` rows of each joint step (a ``joint`` replay puts them
    side by side, ``rlfw.replay.uniform``):

        Q_tot(s, a) = sum_i Q(o_i, a_i)
        y           = sum_i r_i + gamma^n * (1 - terminated) * sum_i max_a' Q_target(o_i', a')

    one shared Q network for every agent, each agent's max over its own open actions (the head closes the
    others); the episode ends for all the agents of a step together.
    """

    needs_joint = True
    signals: frozenset[str] = frozenset()  # the team's TD error is a joint step's, not a sampled row's

    def __init__(self, spec: EnvSpec, td_loss: str = "huber", clip_delta: float = 1.0):
        super().__init__(td_loss, clip_delta)
        require(
            spec.rows_per_copy > 1,
            "loss",
            "vdn",
            f"sums the Q values of an env's agents, and {spec.id} has one agent (env=pettingzoo runs many)",
        )
        self.agents = spec.rows_per_copy

    def forward(self, batch: Batch, net: Head, target: Head) -> dict[str, torch.Tensor]:
        steps = len(batch.action) // self.agents

        def team(x: torch.Tensor) -> torch.Tensor:  # the agents' rows of each joint step, summed
            return x.view(steps, self.agents).sum(1)

        def shared(x: torch.Tensor) -> torch.Tensor:  # what every agent of a step has alike: the first's
            return x.view(steps, self.agents)[:, 0]

        q = team(net(batch.obs)["q"].gather(1, batch.action.long().unsqueeze(1)).squeeze(1))
        with torch.no_grad():
            next_q = team(self.next_q(batch, net, target))
            y = team(batch.reward) + shared(batch.discount) * (1.0 - shared(batch.terminated).float()) * next_q
        return self.td(q, y, None)
