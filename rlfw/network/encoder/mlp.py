"""A multi-layer perceptron over flat (vector) observations; its layers compute in bf16 where
``network.precision`` says they pay (``rlfw.network.precision``), and its features are fp32."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.encoder import Encoder
from rlfw.network.precision import Precision
from rlfw.registry import register

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU}
FUNCTIONS = {"relu": torch.relu, "tanh": torch.tanh, "elu": F.elu}


@register("encoder", "mlp")
class MLP(Encoder):
    def __init__(
        self,
        spec: EnvSpec,
        hidden: Sequence[int] = (64, 64),
        activation: str = "tanh",
        precision: Precision | None = None,
    ):
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
        self.layers = nn.Sequential(*layers)  # the modules (and checkpoint keys); forward calls their functions
        self.linears = [layer for layer in layers if isinstance(layer, nn.Linear)]
        self.activation = FUNCTIONS[activation]
        self.out_dim = size
        self.precision = precision or Precision("fp32")
        self.macs = max(layer.in_features * layer.out_features for layer in self.linears)  # the largest layer's, a row

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        # F.linear on each layer's weights, not each module's __call__: at the batch of one env step a
        # module call costs as much as its matmul (docs/design.md, "Speed choices, and why")
        x = obs.float().flatten(1)
        with self.precision.linear(x, self.macs):
            for linear in self.linears:
                x = self.activation(F.linear(x, linear.weight, linear.bias))
        return x.float()
