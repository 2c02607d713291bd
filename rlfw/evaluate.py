"""Greedy evaluation on separate envs: one episode per eval env."""

from __future__ import annotations

import numpy as np
import torch

from rlfw.explore.greedy import Greedy


def evaluate(envs, net, seed: int, device: torch.device) -> np.ndarray:
    """Returns of one greedy episode in each of ``envs``' sub-envs (reset with ``seed``)."""
    greedy = Greedy()
    obs, _ = envs.reset(seed=seed)
    returns = np.zeros(envs.num_envs)
    running = np.ones(envs.num_envs, dtype=bool)
    while running.any():
        with torch.inference_mode():
            action, _ = greedy.act(net(torch.as_tensor(obs, device=device)), 0)
        obs, reward, terminated, truncated, _ = envs.step(action.cpu().numpy())
        returns += reward * running
        running &= ~(terminated | truncated)
    return returns
