"""Greedy evaluation on separate envs: one episode per eval env."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from rlfw.explore.greedy import Greedy

EVAL_SEED_OFFSET = 1_000_003  # eval envs never share seeds with the training envs


def never() -> bool:
    return False


def evaluate(envs, net, seed: int, device: torch.device, stop: Callable[[], bool] = never) -> np.ndarray | None:
    """Returns of one greedy episode in each of ``envs``' sub-envs (reset with ``seed``); None if
    ``stop()`` turned true before they all ended."""
    greedy = Greedy()
    obs, _ = envs.reset(seed=seed)
    returns = np.zeros(envs.num_envs)
    running = np.ones(envs.num_envs, dtype=bool)
    while running.any():
        if stop():
            return None
        with torch.inference_mode():
            action, _ = greedy.act(net(torch.as_tensor(obs, device=device)), 0)
        obs, reward, terminated, truncated, _ = envs.step(action)
        returns += reward * running
        running &= ~(terminated | truncated)
    return returns


def evaluation(module: Any, envs, stop: Callable[[], bool] = never) -> dict[str, float] | None:
    """One evaluation of ``module``'s network now: its env steps and training seconds so far, and the
    mean and std of the returns (each evaluation resets the envs with a seed of its own); None if
    ``stop()`` cut it short."""
    returns = evaluate(envs, module.net, module.cfg["seed"] + EVAL_SEED_OFFSET + len(module.evals), module.device, stop)
    if returns is None:
        return None
    return {
        "env_steps": module.env_steps,
        "wall_seconds": module.wall_seconds(),  # evaluations included
        "return_mean": float(returns.mean()),
        "return_std": float(returns.std()),
    }
