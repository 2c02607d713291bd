"""Q(s, a) for off-policy actor-critics: ``n`` independent critics over the observation and the action.

``forward(obs, action)`` gives ``[n, B]``. With ``frozen=True`` the critics run on detached copies of
their parameters: an actor's loss reads Q(s, pi(s)) that way, so its gradient reaches the actor's
action and never the critics' weights (their own loss trains those)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn
from torch.func import functional_call

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.normalize import Normalized


class Critics(nn.Module):
    def __init__(self, spec: EnvSpec, n: int, hidden: Sequence[int], actor_trunk: nn.Module):
        super().__init__()
        require(n >= 1, "network.head.n_critics", n, "critics Q_1..Q_n, >= 1")
        require(
            len(hidden) > 0 and all(h > 0 for h in hidden), "network.head.critic_hidden", list(hidden), "positive sizes"
        )
        size = math.prod(spec.obs_shape) + math.prod(spec.action_space.shape or (1,))
        # the actor's observation normalizer, when it has one: the critics read what the actor reads
        self.norm = actor_trunk.norm if isinstance(actor_trunk, Normalized) else None
        self.nets = nn.ModuleList(self._mlp(size, hidden) for _ in range(n))

    @staticmethod
    def _mlp(size: int, hidden: Sequence[int]) -> nn.Sequential:
        layers: list[nn.Module] = []
        for h in hidden:
            layers += [nn.Linear(size, h), nn.ReLU()]
            size = h
        return nn.Sequential(*layers, nn.Linear(size, 1))

    def forward(self, obs: torch.Tensor, action: torch.Tensor, frozen: bool = False) -> torch.Tensor:
        if frozen:
            detached = {name: p.detach() for name, p in self.named_parameters()}
            return functional_call(self, detached, (obs, action))
        x = self.norm(obs) if self.norm is not None else obs.float()
        x = torch.cat([x.flatten(1), action.float().flatten(1)], dim=1)
        return torch.stack([net(x).squeeze(-1) for net in self.nets])
