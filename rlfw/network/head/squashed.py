"""SAC's head: a tanh-squashed Gaussian actor and ``n_critics`` critics Q(s, a) (Haarnoja et al. 2018).

The actor gives a mean and a state-dependent log std (squashed into [log_std_min, log_std_max], as
CleanRL's SAC does); an action is a = tanh(u) * scale + bias with u ~ N(mean, std), which maps onto the
action bounds. Its log-probability carries the change of variables:

    log pi(a|s) = sum_i [ log N(u_i; mean_i, std_i) - log(scale_i * (1 - tanh(u_i)^2) + 1e-6) ]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.encoder import Encoder
from rlfw.network.head.contract import NetworkHead
from rlfw.network.head.critic import Critics
from rlfw.network.head.formulas import SquashedNormal
from rlfw.registry import register


def bounds(spec: EnvSpec, head: str) -> tuple[torch.Tensor, torch.Tensor]:
    """(scale, bias) mapping [-1, 1] onto a flat, bounded Box action space."""
    space = spec.action_space
    require(
        isinstance(space, gym.spaces.Box)
        and len(space.shape) == 1
        and bool(np.isfinite(space.low).all() and np.isfinite(space.high).all()),
        "env.id",
        spec.id,
        f"network/head={head} acts in flat Box action spaces with finite bounds; this env has {space}",
    )
    assert isinstance(space, gym.spaces.Box)
    low, high = torch.as_tensor(space.low, dtype=torch.float32), torch.as_tensor(space.high, dtype=torch.float32)
    return (high - low) / 2, (high + low) / 2


class SquashedActor(nn.Module):
    def __init__(self, trunk: Encoder, dims: int, log_std_min: float, log_std_max: float):
        super().__init__()
        self.trunk, self.mean, self.log_std = trunk, nn.Linear(trunk.out_dim, dims), nn.Linear(trunk.out_dim, dims)
        self.log_std_min, self.log_std_max = log_std_min, log_std_max

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        h = self.trunk(obs)
        log_std = torch.tanh(self.log_std(h))  # into [min, max], smoothly (CleanRL's SAC)
        log_std = self.log_std_min + 0.5 * (self.log_std_max - self.log_std_min) * (log_std + 1)
        return {"mean": self.mean(h), "log_std": log_std}


@register("head", "squashed_gaussian")
class SquashedGaussian(NetworkHead):
    """``actor``: the encoder (``network/encoder``, e.g. mlp 256x256 relu), then mean and log std;
    ``critic``: ``n_critics`` MLPs of ``critic_hidden`` over [observation, action]."""

    outputs = frozenset({"mean", "log_std"})
    action_spaces = frozenset({"Box"})
    has_policy = True
    has_critics = True
    scale: torch.Tensor
    bias: torch.Tensor

    def __init__(
        self,
        spec: EnvSpec,
        make_encoder: Callable[[], Encoder],
        n_critics: int = 2,
        critic_hidden: Sequence[int] = (256, 256),
        log_std_min: float = -5.0,
        log_std_max: float = 2.0,
    ):
        super().__init__()
        require(log_std_min < log_std_max, "network.head.log_std_min", log_std_min, "must be below log_std_max")
        scale, bias = bounds(spec, "squashed_gaussian")
        trunk = make_encoder()
        self.actor = SquashedActor(trunk, len(scale), log_std_min, log_std_max)
        self.critic = Critics(spec, n_critics, critic_hidden, trunk)
        self.register_buffer("scale", scale)
        self.register_buffer("bias", bias)

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.actor(obs)

    def distribution(self, out: dict[str, torch.Tensor]) -> SquashedNormal:
        return SquashedNormal(out["mean"], out["log_std"], self.scale, self.bias)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return torch.tanh(out["mean"]) * self.scale + self.bias

    def q_sa(self, obs: torch.Tensor, action: torch.Tensor, frozen: bool = False) -> torch.Tensor:
        """Q_1..Q_n(s, a), ``[n, B]``; ``frozen``: with the critics' parameters detached."""
        return self.critic(obs, action, frozen)
