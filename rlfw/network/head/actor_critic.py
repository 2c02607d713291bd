"""Actor-critic head: policy logits pi(.|s) and state value V(s), on one shared trunk or two."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import torch
from torch import nn
from torch.distributions import Categorical

from rlfw.env.spec import EnvSpec
from rlfw.network.encoder import Encoder
from rlfw.network.head.checks import require_discrete
from rlfw.registry import register


def _orthogonal(layer: LayerT, gain: float) -> LayerT:
    nn.init.orthogonal_(layer.weight, gain)
    if layer.bias is not None:
        nn.init.zeros_(layer.bias)
    return layer


LayerT = TypeVar("LayerT", nn.Linear, nn.Conv2d)


@register("head", "actor_critic")
class ActorCritic(nn.Module):
    """``shared=True``: ``encoder`` feeds both ``actor`` and ``critic`` linear layers.
    ``shared=False``: ``actor`` and ``critic`` each have their own encoder (their own trunk).

    Orthogonal initialisation with gains sqrt(2) (trunk), 0.01 (policy), 1 (value), as in SB3 and
    CleanRL's PPO: a near-uniform initial policy.
    """

    outputs = frozenset({"logits", "value"})

    def __init__(self, spec: EnvSpec, make_encoder: Callable[[], Encoder], shared: bool = False):
        super().__init__()
        require_discrete(spec, "actor_critic")
        self.shared = shared
        if shared:
            self.encoder = make_encoder()
            actor_trunk = critic_trunk = self.encoder
        else:
            actor_trunk, critic_trunk = make_encoder(), make_encoder()
        for m in [actor_trunk, critic_trunk]:
            for layer in m.modules():
                if isinstance(layer, nn.Linear):
                    _orthogonal(layer, math.sqrt(2))
                elif isinstance(layer, nn.Conv2d):
                    _orthogonal(layer, math.sqrt(2))
        policy = _orthogonal(nn.Linear(actor_trunk.out_dim, spec.num_actions), 0.01)
        value = _orthogonal(nn.Linear(critic_trunk.out_dim, 1), 1.0)
        if shared:
            self.actor: nn.Module = policy
            self.critic: nn.Module = value
        else:
            self.actor = nn.Sequential(actor_trunk, policy)
            self.critic = nn.Sequential(critic_trunk, value)

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        if self.shared:
            h = self.encoder(obs)
            return {"logits": self.actor(h), "value": self.critic(h).squeeze(-1)}
        return {"logits": self.actor(obs), "value": self.critic(obs).squeeze(-1)}

    def distribution(self, out: dict[str, torch.Tensor]) -> Categorical:
        """pi(.|s) from the logits. Arguments are not validated: on this hot path the checks cost more
        than the sampling (the logits come from the network, never from a user)."""
        return Categorical(logits=out["logits"], validate_args=False)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        """The policy's most likely action."""
        return out["logits"].argmax(dim=1)
