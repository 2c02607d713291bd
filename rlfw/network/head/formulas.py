"""Action distributions by formula: what a policy head's outputs mean as pi(.|s), for acting and learning.

    Categorical      logits l, n actions   log pi(a|s) = log_softmax(l)_a;  a = first a with cdf_a > u cdf_n, u ~ U[0, 1)
    Gaussian         mean m, log std s     a = m + exp(s) eps,  eps ~ N(0, I)
                                           log pi(a|s) = sum_i -eps_i^2 / 2 - s_i - log sqrt(2 pi)
                                           H = sum_i 1/2 + log sqrt(2 pi) + s_i
    SquashedNormal   u = m + exp(s) eps;   a = tanh(u) * scale + bias
                                           log pi(a|s) = log N(u) - sum_i log(scale_i (1 - tanh(u_i)^2) + 1e-6)

Plain objects over the head's tensors, not ``torch.distributions``: no argument checks and no broadcast
shapes built per call, and the same formulas serve the collector's step and the losses' minibatches.
Every draw comes from torch's global generator (rlfw's one seeded stream). ``log_prob`` and ``entropy``
are summed over action dimensions, so one loss serves every action space.
"""

from __future__ import annotations

import math

import torch

LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
SQUASH_EPSILON = 1e-6  # CleanRL's and SB3's, inside the log of the squashing correction


def normal_log_prob(z: torch.Tensor, log_std: torch.Tensor) -> torch.Tensor:
    """log N(x; m, exp(s)) per dimension, from z = (x - m) / exp(s): -z^2 / 2 - s - log sqrt(2 pi)."""
    return -0.5 * z.pow(2) - log_std - LOG_SQRT_2PI


class Categorical:
    """pi(a|s) = softmax(logits)_a over the last dimension."""

    def __init__(self, logits: torch.Tensor):
        self.logits = logits.log_softmax(-1)  # normalized: log pi(.|s)

    def sample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Inverse CDF: the first action whose cumulative probability exceeds one uniform draw per row,
        scaled by the row's total (rounding leaves it a hair from 1, and an unscaled draw could fall
        past the last possible action)."""
        cdf = self.probs().cumsum(-1)
        u = torch.rand(cdf.shape[:-1], device=cdf.device, dtype=cdf.dtype).unsqueeze(-1)
        action = (cdf <= u * cdf[..., -1:]).sum(-1)
        return action, self.log_prob(action)

    def sample(self) -> torch.Tensor:
        return self.sample_with_log_prob()[0]

    def log_prob(self, action: torch.Tensor) -> torch.Tensor:
        return self.logits.gather(-1, action.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        # clamped: a -inf log-prob times its zero probability counts 0, not nan
        return -(self.logits.clamp(min=torch.finfo(self.logits.dtype).min) * self.probs()).sum(-1)

    def probs(self) -> torch.Tensor:
        # softmax, not exp: torch's vectorized exp is ~10x slower on log-probs below -88 (a masked action's)
        return self.logits.softmax(-1)

    @property
    def mode(self) -> torch.Tensor:
        return self.logits.argmax(-1)


class MultiCategorical:
    """Independent Categoricals over the dimensions of a MultiDiscrete action, ``nvec`` logits each."""

    def __init__(self, logits: torch.Tensor, nvec: list[int]):
        self.parts = [Categorical(part) for part in logits.split(nvec, dim=-1)]

    def sample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        drawn = [part.sample_with_log_prob() for part in self.parts]
        return torch.stack([a for a, _ in drawn], -1), torch.stack([lp for _, lp in drawn], -1).sum(-1)

    def sample(self) -> torch.Tensor:
        return self.sample_with_log_prob()[0]

    def log_prob(self, action: torch.Tensor) -> torch.Tensor:
        return torch.stack([part.log_prob(action[..., i]) for i, part in enumerate(self.parts)], -1).sum(-1)

    def entropy(self) -> torch.Tensor:
        return torch.stack([part.entropy() for part in self.parts], -1).sum(-1)

    @property
    def mode(self) -> torch.Tensor:
        return torch.stack([part.mode for part in self.parts], -1)


class Gaussian:
    """A diagonal Normal; ``log_std`` may be a state-independent ``[d]`` vector or one row per state."""

    def __init__(self, mean: torch.Tensor, log_std: torch.Tensor):
        self.mean, self.log_std = mean, log_std

    def sample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        eps = torch.randn_like(self.mean)
        action = self.mean + self.log_std.exp() * eps
        return action, normal_log_prob(eps, self.log_std).sum(-1)

    def sample(self) -> torch.Tensor:
        return self.sample_with_log_prob()[0]

    def log_prob(self, action: torch.Tensor) -> torch.Tensor:
        return normal_log_prob((action - self.mean) * torch.exp(-self.log_std), self.log_std).sum(-1)

    def entropy(self) -> torch.Tensor:
        """Per row; of a state-independent std it is one number, computed once and broadcast."""
        per_row = (0.5 + LOG_SQRT_2PI + self.log_std).sum(-1)
        return per_row.expand(self.mean.shape[:-1])

    @property
    def mode(self) -> torch.Tensor:
        return self.mean


class SquashedNormal:
    """tanh(N(mean, exp(log_std))) * scale + bias, independent over action dimensions (SAC's actor)."""

    def __init__(self, mean: torch.Tensor, log_std: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor):
        self.mean, self.log_std, self.scale, self.bias = mean, log_std, scale, bias

    def rsample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """A reparameterized action and its log-probability, from the same draw (no atanh needed)."""
        eps = torch.randn_like(self.mean)
        squashed = torch.tanh(self.mean + self.log_std.exp() * eps)
        correction = torch.log(self.scale * (1 - squashed.pow(2)) + SQUASH_EPSILON)
        logp = (normal_log_prob(eps, self.log_std) - correction).sum(-1)
        return squashed * self.scale + self.bias, logp

    sample_with_log_prob = rsample_with_log_prob

    def sample(self) -> torch.Tensor:
        with torch.no_grad():
            return self.rsample_with_log_prob()[0]

    def log_prob(self, action: torch.Tensor) -> torch.Tensor:
        squashed = ((action - self.bias) / self.scale).clamp(-1 + SQUASH_EPSILON, 1 - SQUASH_EPSILON)
        z = (torch.atanh(squashed) - self.mean) * torch.exp(-self.log_std)
        correction = torch.log(self.scale * (1 - squashed.pow(2)) + SQUASH_EPSILON)
        return (normal_log_prob(z, self.log_std) - correction).sum(-1)

    @property
    def mode(self) -> torch.Tensor:
        return torch.tanh(self.mean) * self.scale + self.bias
