"""Noisy linear layers (Fortunato et al. 2018, "Noisy Networks for Exploration", section 3), factorised
Gaussian noise: a Q head with ``noisy: true`` explores through its own weights instead of epsilon.

    y = (mu_w + sigma_w * eps_w) x + mu_b + sigma_b * eps_b
    eps_w = f(eps_out) f(eps_in)^T,  eps_b = f(eps_out),  f(e) = sign(e) sqrt(|e|),  eps ~ N(0, 1)

mu starts uniform in +-1/sqrt(in), sigma at sigma0/sqrt(in) (the paper's factorised initialisation).

When the noise changes: a fresh draw at every forward pass in training mode. An acting step is one
forward (one draw for that vector step of the envs); an update draws once per forward it makes (the
online net on s, the target net on s', and with Double the online net on s' again), which gives the
online and target nets independent noise, as the paper's DQN does. Evaluation, ``rlfw.load``,
``python -m rlfw.play`` and export run in eval mode: the mean weights mu, no noise.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from rlfw.errors import require


class NoisyLinear(nn.Module):
    def __init__(self, in_features: int, out_features: int, sigma0: float = 0.5):
        super().__init__()
        bound = 1 / math.sqrt(in_features)
        self.weight_mu = nn.Parameter(torch.empty(out_features, in_features).uniform_(-bound, bound))
        self.weight_sigma = nn.Parameter(torch.full((out_features, in_features), sigma0 * bound))
        self.bias_mu = nn.Parameter(torch.empty(out_features).uniform_(-bound, bound))
        self.bias_sigma = nn.Parameter(torch.full((out_features,), sigma0 * bound))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return F.linear(x, self.weight_mu, self.bias_mu)
        eps_in, eps_out = scaled_noise(self.weight_mu.shape[1], x), scaled_noise(self.weight_mu.shape[0], x)
        weight = self.weight_mu + self.weight_sigma * torch.outer(eps_out, eps_in)
        return F.linear(x, weight, self.bias_mu + self.bias_sigma * eps_out)


def scaled_noise(n: int, like: torch.Tensor) -> torch.Tensor:
    """f(eps) = sign(eps) sqrt(|eps|) for eps ~ N(0, 1)^n, drawn on the CPU (rlfw's one seeded stream)."""
    eps = torch.randn(n)
    return (eps.sign() * eps.abs().sqrt()).to(device=like.device, dtype=like.dtype)


def output_layer(in_features: int, out_features: int, noisy: bool, sigma0: float) -> nn.Module:
    """A Q head's output layer: plain, or noisy with ``sigma0``."""
    require(sigma0 > 0, "network.head.sigma0", sigma0, "the noise's initial scale, > 0")
    return NoisyLinear(in_features, out_features, sigma0) if noisy else nn.Linear(in_features, out_features)
