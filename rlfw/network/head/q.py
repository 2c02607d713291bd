"""Q head: one value per action, Q(s, .); ``noisy``: its output layer a noisy one (rlfw/network/noisy.py)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from rlfw.env.spec import EnvSpec
from rlfw.network.encoder import Encoder
from rlfw.network.head.checks import require_discrete
from rlfw.network.head.contract import NetworkHead
from rlfw.network.noisy import output_layer
from rlfw.registry import register


@register("head", "q")
class QNetwork(NetworkHead):
    outputs = frozenset({"q"})
    action_spaces = frozenset({"Discrete"})
    scores = "q"

    def __init__(self, spec: EnvSpec, make_encoder: Callable[[], Encoder], noisy: bool = False, sigma0: float = 0.5):
        super().__init__()
        require_discrete(spec, "q")
        self.encoder = make_encoder()
        self.q = output_layer(self.encoder.out_dim, spec.num_actions, noisy, sigma0)

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.open_to({"q": self.q(self.encoder(obs))}, obs)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        """The greedy action: argmax_a Q(s, a)."""
        return out["q"].argmax(dim=1)
