"""Observation normalization that travels with the network (``network.normalize_obs``).

Running mean and variance of the raw observations, kept as the network's buffers: a checkpoint, a
resumed run, ``rlfw.load`` and an exported policy all carry them, with no wrapper to rebuild (Sample
Factory's choice). The collector updates them from every observation it acts on, with gymnasium's
parallel update (``RunningMeanStd``); evaluation and the losses only read them.
"""

from __future__ import annotations

import numpy as np
import torch
from gymnasium.wrappers.utils import update_mean_var_count_from_moments
from torch import nn

from rlfw.network.encoder import Encoder

EPSILON = 1e-8  # gymnasium's NormalizeObservation


class ObsNorm(nn.Module):
    """(obs - mean) / sqrt(var + 1e-8), clipped to +-``clip``."""

    mean: torch.Tensor
    var: torch.Tensor
    count: torch.Tensor

    def __init__(self, shape: tuple[int, ...], clip: float):
        super().__init__()
        self.clip = clip
        self.register_buffer("mean", torch.zeros(shape, dtype=torch.float64))
        self.register_buffer("var", torch.ones(shape, dtype=torch.float64))
        self.register_buffer("count", torch.tensor(1e-4, dtype=torch.float64))  # gymnasium's RunningMeanStd

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        scaled = (obs.float() - self.mean.float()) / torch.sqrt(self.var.float() + EPSILON)
        return scaled.clamp(-self.clip, self.clip)

    @torch.no_grad()
    def update(self, obs: np.ndarray) -> None:
        """Takes a batch of raw observations into the running statistics."""
        batch = np.asarray(obs, dtype=np.float64)
        mean, var, count = update_mean_var_count_from_moments(
            self.mean.cpu().numpy(), self.var.cpu().numpy(), float(self.count), batch.mean(0), batch.var(0), len(batch)
        )
        self.mean.copy_(torch.from_numpy(np.asarray(mean)))
        self.var.copy_(torch.from_numpy(np.asarray(var)))
        self.count.fill_(count)


class Normalized(Encoder):
    """An encoder reading normalized observations; encoders made for one network share one ``norm``."""

    def __init__(self, norm: ObsNorm, encoder: Encoder):
        super().__init__()
        self.norm, self.encoder, self.out_dim = norm, encoder, encoder.out_dim

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.encoder(self.norm(obs))


def normalizers(net: object) -> list[ObsNorm]:
    """The network's observation normalizers (each once, however many encoders share it); none when
    the policy is not a module (a test's stand-in, a collector stepping with random actions)."""
    return [m for m in net.modules() if isinstance(m, ObsNorm)] if isinstance(net, nn.Module) else []


def shared_norm(encoders: list[Encoder]) -> tuple[ObsNorm | None, list[Encoder]]:
    """The one normalizer ``encoders`` share (``network.normalize_obs``), and the encoders without it:
    a head normalizes once for all its trunks."""
    normalized = [e for e in encoders if isinstance(e, Normalized)]
    if len(normalized) != len(encoders):
        return None, encoders
    return normalized[0].norm, [e.encoder for e in normalized]
