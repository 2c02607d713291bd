"""The n-step TD target the value-based and off-policy actor-critic losses share."""

from __future__ import annotations

import torch

from rlfw.batch import Batch


def td_target(batch: Batch, next_value: torch.Tensor) -> torch.Tensor:
    """y = r + gamma^n (1 - terminated) V(s'): ``reward`` the replay's n-step return, ``discount`` its
    gamma^n, ``next_value`` the bootstrap at s' (nothing bootstraps past a terminal state)."""
    return batch.reward + batch.discount * (1.0 - batch.terminated.float()) * next_value
