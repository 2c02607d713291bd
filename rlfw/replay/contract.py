"""What a replay strategy is and declares: the one place the fit checks (``rlfw/config/check.py``),
the plugin listing and ``rlfw.testing`` read its capabilities from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import torch

from rlfw.batch import Batch


class Replay:
    """The data source: ``add(step)`` takes a vector step (numpy arrays ``[num_envs, ...]``), ``ready()``
    says when ``batches(net)`` may yield (``env_steps`` is the run's clock then), ``feedback(batch, terms)`` hears the loss's terms of each batch;
    ``state_dict()`` / ``load_state_dict()`` resume it. A strategy subclasses this class."""

    provides: frozenset[str] = frozenset()  # the batch fields it yields
    needs_extras: frozenset[str] = frozenset()  # what the explore rule must record while acting
    collect_steps: int = 1  # vector steps between update phases
    sequences: bool = False  # yields env columns in time order (what a recurrent head trains on)
    # with many agents as rows (EnvSpec.agents), yields every agent's row of a sampled step, adjacent
    # (what a loss over the agents' joint step, VDN's, reads)
    joint: bool = False
    env_steps: int = 0  # the run's env steps so far, every rank's (the collector sets it before each add)

    def add(self, step: dict[str, np.ndarray]) -> None:  # pragma: no cover
        raise NotImplementedError

    def ready(self) -> bool:  # pragma: no cover
        raise NotImplementedError

    def batches(self, net: Any) -> Iterator[Batch]:  # pragma: no cover
        raise NotImplementedError

    def feedback(self, batch: Batch, terms: dict[str, torch.Tensor]) -> None:  # pragma: no cover
        raise NotImplementedError
