"""A multi-layer perceptron over flat (vector) observations."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.encoder import Encoder
from rlfw.registry import register

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU}


@register("encoder", "mlp")
class MLP(Encoder):
    def __init__(self, spec: EnvSpec, hidden: Sequence[int] = (64, 64), activation: str = "tanh"):
        super().__init__()
        require(
            len(hidden) > 0 and all(h > 0 for h in hidden),
            "network.encoder.hidden",
            hidden,
            "a non-empty list of positive sizes",
        )
        require(activation in ACTIVATIONS, "network.encoder.activation", activation, f"one of {', '.join(ACTIVATIONS)}")
        layers: list[nn.Module] = [nn.Flatten()]
        size = math.prod(spec.obs_shape)
        for h in hidden:
            layers += [nn.Linear(size, h), ACTIVATIONS[activation]()]
            size = h
        self.layers = nn.Sequential(*layers)
        self.out_dim = size

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.layers(obs.float())
