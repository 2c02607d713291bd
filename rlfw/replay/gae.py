"""Generalized Advantage Estimation (Schulman et al. 2016)."""

from __future__ import annotations

import numpy as np
import torch


def gae(
    reward: torch.Tensor,
    value: torch.Tensor,
    next_value: torch.Tensor,
    terminated: torch.Tensor,
    truncated: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """Advantages for ``[T, num_envs]`` tensors, computed backwards in time.

    delta_t = r_t + gamma * (1 - terminated_t) * V(s_{t+1}) - V(s_t)
    A_t     = delta_t + gamma * lam * (1 - done_t) * A_{t+1},   done_t = terminated_t or truncated_t

    ``next_value[t]`` is V of the true next state (the final observation when the episode ended), so
    a truncated step still bootstraps from it while the advantage recursion stops at the episode end.
    """
    not_terminal = 1.0 - terminated.float()
    not_done = 1.0 - (terminated | truncated).float()
    delta = (reward + gamma * not_terminal * next_value - value).numpy(force=True)
    decay = (gamma * lam * not_done).numpy(force=True)
    # the recursion row by row in numpy: a numpy op on a few envs costs a fraction of a torch op
    advantage = np.empty_like(delta)
    running = np.zeros_like(delta[0])
    for t in range(len(delta) - 1, -1, -1):
        running = delta[t] + decay[t] * running
        advantage[t] = running
    return torch.from_numpy(advantage).to(reward.device)
