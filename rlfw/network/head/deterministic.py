"""TD3's and DDPG's head: a deterministic actor mu(s) = tanh(.) scaled onto the action bounds, and
``n_critics`` critics Q(s, a) (Fujimoto et al. 2018; Lillicrap et al. 2016)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.network.encoder import Encoder
from rlfw.network.head.contract import NetworkHead
from rlfw.network.head.critic import Critics
from rlfw.network.head.squashed import bounds
from rlfw.registry import register


@register("head", "deterministic_actor")
class DeterministicActor(NetworkHead):
    """``actor``: the encoder (``network/encoder``), then a linear layer and tanh; ``critic``:
    ``n_critics`` MLPs of ``critic_hidden`` over [observation, action]."""

    outputs = frozenset({"action"})
    action_spaces = frozenset({"Box"})
    has_critics = True
    scale: torch.Tensor
    bias: torch.Tensor

    def __init__(
        self,
        spec: EnvSpec,
        make_encoder: Callable[[], Encoder],
        n_critics: int = 2,
        critic_hidden: Sequence[int] = (256, 256),
    ):
        super().__init__()
        scale, bias = bounds(spec, "deterministic_actor")
        trunk = make_encoder()
        self.actor = nn.Sequential(trunk, nn.Linear(trunk.out_dim, len(scale)), nn.Tanh())
        self.critic = Critics(spec, n_critics, critic_hidden, trunk)
        self.register_buffer("scale", scale)
        self.register_buffer("bias", bias)

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"action": self.actor(obs) * self.scale + self.bias}

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return out["action"]

    def q_sa(self, obs: torch.Tensor, action: torch.Tensor, frozen: bool = False) -> torch.Tensor:
        """Q_1..Q_n(s, a), ``[n, B]``; ``frozen``: with the critics' parameters detached."""
        return self.critic(obs, action, frozen)
