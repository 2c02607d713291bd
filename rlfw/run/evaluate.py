"""Evaluation on separate envs: one episode per eval env, acting greedily (the head's ``mode``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from rlfw.env.masks import KEY
from rlfw.env.spec import env_action
from rlfw.explore.act import GREEDY, act
from rlfw.network.driver import Driver, driver

EVAL_SEED_OFFSET = 1_000_003  # eval envs never share seeds with the training envs
# a batch of observations, and the actions open in each (the env's action masks; None: all) -> their actions
Policy = Callable[[np.ndarray, np.ndarray | None], np.ndarray]


def never() -> bool:
    return False


def greedy(net: nn.Module, device: torch.device) -> Policy:
    """The network's greedy actions, as numpy, for numpy observations. Its driver (a recurrent network's
    memory of each env's steps) is made at the first call: one policy per ``evaluate``, which plays one
    episode per env."""
    acting: Driver | None = None

    def policy(obs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        nonlocal acting
        acting = acting or driver(net, len(obs), device)
        training = net.training
        net.eval()  # the mean weights of noisy layers
        try:
            with torch.inference_mode():
                return act(acting, GREEDY, obs, device=device, mask=mask)[0]
        finally:
            net.train(training)

    return policy


def evaluate(envs, policy: Policy, seed: int, stop: Callable[[], bool] = never) -> tuple[np.ndarray, np.ndarray] | None:
    """The returns and lengths of one episode in each of ``envs``' sub-envs (reset with ``seed``),
    acting with ``policy``; None if ``stop()`` turned true before they all ended."""
    obs, info = envs.reset(seed=seed)
    to_env = env_action(envs.single_action_space)
    returns = np.zeros(envs.num_envs)
    lengths = np.zeros(envs.num_envs, dtype=np.int64)
    running = np.ones(envs.num_envs, dtype=bool)
    while running.any():
        if stop():
            return None
        obs, reward, terminated, truncated, info = envs.step(to_env(policy(obs, info.get(KEY))))
        returns += reward * running
        lengths += running
        running &= ~(terminated | truncated)
    return returns, lengths


def eval_seed(seed: int, evaluation: int) -> int:
    """The seed of a run's ``evaluation``-th evaluation (0 first): each one resets its envs anew."""
    return seed + EVAL_SEED_OFFSET + evaluation


def evaluation(module: Any, envs, stop: Callable[[], bool] = never) -> dict[str, float] | None:
    """One evaluation of ``module``'s network now: its env steps and training seconds so far, and the
    mean and std of the returns; None if ``stop()`` cut it short."""
    result = evaluate(
        envs, greedy(module.net, module.device), eval_seed(module.cfg["seed"], len(module.progress.evals)), stop
    )
    if result is None:
        return None
    returns, _ = result
    return {
        "env_steps": module.progress.env_steps,
        "wall_seconds": module.wall_seconds(),  # evaluations included
        "return_mean": float(returns.mean()),
        "return_std": float(returns.std()),
        **per_agent(returns, getattr(envs, "agents", None)),
    }


def per_agent(returns: np.ndarray, agents: list[str] | None) -> dict[str, float]:
    """With many agents (rows copy-major, ``rlfw.env.agents``), the team's return (the sum of a copy's
    agents') and each agent's, as means over the copies; nothing for one agent."""
    if not agents or len(agents) < 2:
        return {}
    by_copy = returns.reshape(-1, len(agents))
    return {
        "team_return_mean": float(by_copy.sum(1).mean()),
        **{f"return_mean_{agent}": float(by_copy[:, i].mean()) for i, agent in enumerate(agents)},
    }
