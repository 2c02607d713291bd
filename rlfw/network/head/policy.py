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
from torch import nn
from torch.distributions import Categorical as TorchCategorical
from torch.distributions import Distribution, Independent, Normal

from rlfw.env.spec import EnvSpec
from rlfw.errors import require

SPACES = ("Discrete", "MultiDiscrete", "Box")


class Categorical(TorchCategorical):
    """torch's Categorical over ``logits``, with its values at a lower cost: normalized by one
    ``log_softmax`` (torch's takes logsumexp, several kernels forward and backward), log pi(a|s) one
    gather, the entropy one sum; arguments not validated, as the logits come from the network
    (docs/design.md, "Speed choices, and why")."""

    def __init__(self, logits: torch.Tensor):
        self.logits = logits.log_softmax(-1)
        self._param, self._num_events = self.logits, logits.size(-1)  # what torch's methods read
        Distribution.__init__(self, logits.shape[:-1], validate_args=False)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        return self.logits.gather(-1, value.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        # clamped as torch's is: a -inf log-prob times its zero probability counts 0, not nan
        return -(self.logits.clamp(min=torch.finfo(self.logits.dtype).min) * self.logits.exp()).sum(-1)


class CategoricalLayer(nn.Module):
    outputs = frozenset({"logits"})

    def __init__(self, in_dim: int, n: int):
        super().__init__()
        self.linear = nn.Linear(in_dim, n)

    def forward(self, h: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"logits": self.linear(h)}

    def distribution(self, out: dict[str, torch.Tensor]) -> Distribution:
        return Categorical(out["logits"])

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return out["logits"].argmax(dim=-1)


class MultiCategorical(Distribution):
    """Independent Categoricals over the dimensions of a MultiDiscrete action: log-probs and
    entropies summed over them."""

    def __init__(self, logits: torch.Tensor, nvec: list[int]):
        self.parts = [Categorical(part) for part in logits.split(nvec, dim=-1)]
        super().__init__(logits.shape[:-1], torch.Size([len(nvec)]), validate_args=False)

    def sample(self, sample_shape: torch.Size | list[int] | tuple[int, ...] = ()) -> torch.Tensor:
        return torch.stack([part.sample(torch.Size(sample_shape)) for part in self.parts], dim=-1)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        return torch.stack([part.log_prob(value[..., i]) for i, part in enumerate(self.parts)], -1).sum(-1)

    def entropy(self) -> torch.Tensor:
        return torch.stack([part.entropy() for part in self.parts], -1).sum(-1)

    @property
    def mode(self) -> torch.Tensor:
        return torch.stack([part.logits.argmax(dim=-1) for part in self.parts], dim=-1)


class MultiCategoricalLayer(CategoricalLayer):
    def __init__(self, in_dim: int, nvec: list[int]):
        super().__init__(in_dim, sum(nvec))
        self.nvec = nvec

    def distribution(self, out: dict[str, torch.Tensor]) -> Distribution:
        return MultiCategorical(out["logits"], self.nvec)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return MultiCategorical(out["logits"], self.nvec).mode


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
        mean = self.linear(h)
        return {"mean": mean, "log_std": self.log_std.expand_as(mean)}

    def distribution(self, out: dict[str, torch.Tensor]) -> Distribution:
        return Independent(Normal(out["mean"], out["log_std"].exp(), validate_args=False), 1, validate_args=False)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return out["mean"]


def policy_layer(spec: EnvSpec, in_dim: int, log_std_init: float, head: str) -> nn.Module:
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
