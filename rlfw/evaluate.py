"""Greedy evaluation on separate envs: one episode per eval env."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch

from rlfw.explore.greedy import Greedy

EVAL_SEED_OFFSET = 1_000_003  # eval envs never share seeds with the training envs


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


def evaluation(module: Any, envs) -> dict[str, float]:
    """One evaluation of ``module``'s network now: its env steps and training seconds so far, and the
    mean and std of the returns (each evaluation resets the envs with a seed of its own)."""
    returns = evaluate(envs, module.net, module.cfg["seed"] + EVAL_SEED_OFFSET + len(module.evals), module.device)
    return {
        "env_steps": module.env_steps,
        "wall_seconds": time.monotonic() - module.started,  # evaluations included
        "return_mean": float(returns.mean()),
        "return_std": float(returns.std()),
    }
