"""The policy layer of an actor: features in, the parameters of pi(.|s) out, one kind per action space.

    Discrete        logits [B, n]                    Categorical
    MultiDiscrete   logits [B, sum(nvec)]            independent Categoricals, one per dimension
    Box             mean [B, d], log_std [B, d]      diagonal Normal (log_std a learned, state-independent vector)

Each layer also turns its outputs into the distribution, whose ``log_prob`` and ``entropy`` are
summed over action dimensions, and into the greedy action (its mode). Losses and explore rules use
only these, so one PPO or A2C loss serves every action space.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.head.formulas import Categorical, Gaussian, MultiCategorical

SPACES = ("Discrete", "MultiDiscrete", "Box")


class CategoricalLayer(nn.Module):
    outputs = frozenset({"logits"})

    def __init__(self, in_dim: int, n: int):
        super().__init__()
        self.linear = nn.Linear(in_dim, n)

    def forward(self, h: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"logits": self.linear(h)}

    def distribution(self, out: dict[str, torch.Tensor]) -> Categorical | MultiCategorical:
        return Categorical(out["logits"])

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return out["logits"].argmax(dim=-1)


class MultiCategoricalLayer(CategoricalLayer):
    def __init__(self, in_dim: int, nvec: list[int]):
        super().__init__(in_dim, sum(nvec))
        self.nvec = nvec

    def distribution(self, out: dict[str, torch.Tensor]) -> MultiCategorical:
        return MultiCategorical(out["logits"], self.nvec)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return torch.stack([part.argmax(-1) for part in out["logits"].split(self.nvec, dim=-1)], -1)


class GaussianLayer(nn.Module):
    """A diagonal Gaussian whose mean depends on the state and whose log std is one learned vector
    (CleanRL's and SB3's PPO); the sampled action is unbounded, clipped to the bounds only where it
    enters the env."""

    outputs = frozenset({"mean", "log_std"})

    def __init__(self, in_dim: int, dims: int, log_std_init: float):
        super().__init__()
        self.linear = nn.Linear(in_dim, dims)
        self.log_std = nn.Parameter(torch.full((dims,), float(log_std_init)))

    def forward(self, h: torch.Tensor) -> dict[str, torch.Tensor]:
        mean = F.linear(h, self.linear.weight, self.linear.bias)  # not the module's __call__: as in rlfw's MLP
        return {"mean": mean, "log_std": self.log_std.expand_as(mean)}

    def distribution(self, out: dict[str, torch.Tensor]) -> Gaussian:
        # the parameter itself, not its rows: the entropy of a state-independent std is one number
        return Gaussian(out["mean"], self.log_std)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return out["mean"]


PolicyLayer = CategoricalLayer | GaussianLayer  # MultiCategoricalLayer is a CategoricalLayer


def policy_layer(spec: EnvSpec, in_dim: int, log_std_init: float, head: str) -> PolicyLayer:
    """The policy layer for ``spec``'s action space; other spaces are refused naming the ones it takes."""
    space = spec.action_space
    if isinstance(space, gym.spaces.Discrete):
        return CategoricalLayer(in_dim, int(space.n))
    if isinstance(space, gym.spaces.MultiDiscrete):
        require(space.nvec.ndim == 1, "env.id", spec.id, f"network/head={head} takes a flat MultiDiscrete space")
        return MultiCategoricalLayer(in_dim, [int(n) for n in space.nvec])
    require(
        isinstance(space, gym.spaces.Box),
        "env.id",
        spec.id,
        f"network/head={head} acts in {', '.join(SPACES)} action spaces; this env has {space}",
    )
    assert isinstance(space, gym.spaces.Box)
    require(
        len(space.shape) == 1 and bool(np.isfinite(space.low).all() and np.isfinite(space.high).all()),
        "env.id",
        spec.id,
        f"network/head={head} needs a flat Box action space with finite bounds (actions are clipped to them);"
        f" this env has {space}",
    )
    return GaussianLayer(in_dim, space.shape[0], log_std_init)
