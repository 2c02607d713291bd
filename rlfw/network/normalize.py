"""Observation normalization that travels with the network (``network.normalize_obs``).

Running mean and variance of the raw observations, kept as the network's buffers: a checkpoint, a
resumed run, ``rlfw.load`` and an exported policy all carry them, with no wrapper to rebuild (Sample
Factory's choice). The collector updates them from every observation it acts on, with gymnasium's
parallel update (``RunningMeanStd``); evaluation and the losses only read them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import torch
from gymnasium.wrappers.utils import update_mean_var_count_from_moments
from torch import nn

from rlfw.network.encoder import Encoder

EPSILON = 1e-8  # gymnasium's NormalizeObservation
STATISTICS = ("mean", "var", "count", "shift", "inv_std")


class ObsNorm(nn.Module):
    """(obs - mean) / sqrt(var + 1e-8), clipped to +-``clip``.

    The statistics are float64 buffers (saved); the forward reads float32 copies of the mean and of
    1 / sqrt(var + 1e-8), refreshed by ``update`` and on load, so a forward is three ops. With
    ``columns`` (start, stop), it keeps the statistics of those entries of each observation only (a
    Dict observation's vector key, packed: ``rlfw.env.packed``), and its forward takes them alone."""

    mean: torch.Tensor
    var: torch.Tensor
    count: torch.Tensor
    shift: torch.Tensor
    inv_std: torch.Tensor

    def __init__(self, shape: tuple[int, ...], clip: float, columns: tuple[int, int] | None = None):
        super().__init__()
        self.clip, self.columns = clip, columns
        self._views: list[np.ndarray] | None = None  # numpy views of the buffers, on a CPU (``_arrays``)
        self.register_buffer("mean", torch.zeros(shape, dtype=torch.float64))
        self.register_buffer("var", torch.ones(shape, dtype=torch.float64))
        self.register_buffer("count", torch.tensor(1e-4, dtype=torch.float64))  # gymnasium's RunningMeanStd
        # derived from mean and var (``_derive``); here their initial values, made on any device (meta too)
        self.register_buffer("shift", torch.zeros(shape), persistent=False)
        self.register_buffer("inv_std", torch.full(shape, 1 / math.sqrt(1 + EPSILON)), persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return ((obs.float() - self.shift) * self.inv_std).clamp(-self.clip, self.clip)

    def update(self, obs: np.ndarray) -> None:
        """Takes a batch of raw observations into the running statistics: gymnasium's parallel update
        (``RunningMeanStd``), which for one row is Welford's, written out so as to skip ``np.var`` of one
        row. In numpy, on the buffers themselves on a CPU (on host copies written back on a GPU)."""
        batch = np.asarray(obs if self.columns is None else obs[:, slice(*self.columns)], dtype=np.float64)
        arrays, on_host = self._arrays()
        mean, var, count = arrays[:3]
        before, n = float(count), len(batch)
        total = before + n
        if n == 1:
            delta = batch[0] - mean
            mean += delta / total
            var *= before / total
            var += delta * (batch[0] - mean) / total
        else:
            new_mean, new_var, _ = update_mean_var_count_from_moments(mean, var, before, batch.mean(0), batch.var(0), n)
            mean[...], var[...] = new_mean, new_var
        count[...] = total
        self._derive(arrays, on_host)

    def refresh(self) -> None:
        """The forward's float32 mean and inverse std, from the statistics (after a load)."""
        self._derive(*self._arrays())

    def _arrays(self) -> tuple[list[np.ndarray], bool]:
        """The buffers ``STATISTICS`` as numpy arrays: views on a CPU (made once, until the buffers move
        or are replaced), host copies elsewhere; and whether they are on the CPU. This runs at every env
        step: no torch calls on a CPU."""
        if self._views is not None:
            return self._views, True
        tensors = [cast(torch.Tensor, self._buffers[k]) for k in STATISTICS]
        if tensors[0].device.type == "cpu":
            self._views = [t.numpy() for t in tensors]
            return self._views, True
        return [t.cpu().numpy() for t in tensors], False

    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], recurse: bool = True) -> ObsNorm:
        self._views = None  # .to(), .float(), ...: the buffers may be new tensors
        return super()._apply(fn, recurse)

    def __getstate__(self) -> dict[str, Any]:
        return {**super().__getstate__(), "_views": None}  # a copy (deepcopy, pickle) has buffers of its own

    def _derive(self, arrays: list[np.ndarray], on_host: bool) -> None:
        """shift = mean, inv_std = 1 / sqrt(var + 1e-8), into ``arrays``; written back to the buffers
        when those are not on the CPU (on the CPU the arrays are the buffers)."""
        mean, var, _, shift, inv_std = arrays
        shift[...] = mean
        np.reciprocal(np.sqrt(var + EPSILON), out=inv_std)
        if not on_host:
            for name, array in zip(STATISTICS, arrays, strict=True):
                cast(torch.Tensor, self._buffers[name]).copy_(torch.from_numpy(array))

    def _load_from_state_dict(self, *args, **kwargs) -> None:
        self._views = None  # load_state_dict(assign=True) replaces the buffers
        super()._load_from_state_dict(*args, **kwargs)
        self.refresh()


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
