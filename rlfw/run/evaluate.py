"""Evaluation on separate envs: one episode per eval env, acting greedily (the head's ``mode``). What is
measured is the env spec's ``evaluation``: episode returns, or a turn-based game's results against
opponents from each seat (``rlfw.env.games``), one of them the policy as it was at the evaluation before."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

from rlfw.env import games
from rlfw.env.spec import EnvSpec, env_action
from rlfw.explore.act import act
from rlfw.explore.greedy import GREEDY
from rlfw.network.driver import Driver, driver

EVAL_SEED_OFFSET = 1_000_003  # eval envs never share seeds with the training envs
Policy = Callable[[np.ndarray], np.ndarray]  # a batch of observations (with their open actions) -> their actions


def never() -> bool:
    return False


def greedy(net: nn.Module, device: torch.device) -> Policy:
    """The network's greedy actions, as numpy, for numpy observations. Its driver (a recurrent network's
    memory of each env's steps) is made at the first call: one policy per ``evaluate``, which plays one
    episode per env."""
    driving: Driver | None = None

    def policy(obs: np.ndarray) -> np.ndarray:
        nonlocal driving
        driving = driving or driver(net, len(obs), device)
        training = net.training
        net.eval()  # the mean weights of noisy layers
        try:
            with torch.inference_mode():
                return act(driving, GREEDY, obs, device=device)[0]
        finally:
            net.train(training)

    return policy


def evaluate(envs, policy: Policy, seed: int, stop: Callable[[], bool] = never) -> tuple[np.ndarray, np.ndarray] | None:
    """The returns and lengths of one episode in each of ``envs``' sub-envs (reset with ``seed``),
    acting with ``policy``; None if ``stop()`` turned true before they all ended."""
    obs, _ = envs.reset(seed=seed)
    to_env = env_action(envs.single_action_space)
    returns = np.zeros(envs.num_envs)
    lengths = np.zeros(envs.num_envs, dtype=np.int64)
    running = np.ones(envs.num_envs, dtype=bool)
    while running.any():
        if stop():
            return None
        obs, reward, terminated, truncated, _ = envs.step(to_env(policy(obs)))
        returns += reward * running
        lengths += running
        running &= ~(terminated | truncated)
    return returns, lengths


def eval_seed(seed: int, evaluation: int) -> int:
    """The seed of a run's ``evaluation``-th evaluation (0 first): each one resets its envs anew."""
    return seed + EVAL_SEED_OFFSET + evaluation


class Evaluation:
    """A run's greedy evaluations of ``spec``'s env, and what they keep between them (the weights the
    game's ``previous`` opponent plays with: part of the checkpoint, so a resumed run meets the same one)."""

    def __init__(self, spec: EnvSpec, seed: int):
        self.spec, self.seed = spec, seed
        self.previous: dict[str, torch.Tensor] | None = None

    def run(self, module: Any, envs, stop: Callable[[], bool] = never) -> dict[str, float] | None:
        """One evaluation of ``module``'s network now: its env steps and training seconds so far, and the
        mean and std of the returns, with what the spec's measure adds; None if ``stop()`` cut it short."""
        seed = eval_seed(self.seed, len(module.progress.evals))
        measure = self._games if self.spec.evaluation == "games" else self._returns
        result = measure(module.net, module.device, envs, seed, stop)
        if result is None:
            return None
        progress = module.progress
        return {
            "env_steps": progress.env_steps,
            "updates": progress.updates,
            "wall_seconds": module.wall_seconds(),
            **result,
        }

    def _returns(self, net, device, envs, seed: int, stop: Callable[[], bool]) -> dict[str, float] | None:
        played = evaluate(envs, greedy(net, device), seed, stop)
        if played is None:
            return None
        returns = played[0]
        return {
            "return_mean": float(returns.mean()),
            "return_std": float(returns.std()),
            **self.spec.breakdown(returns),
        }

    def _games(self, net, device, envs, seed: int, stop: Callable[[], bool]) -> dict[str, float] | None:
        """Against a uniform random player and against the policy as it was at the evaluation before (its
        initial weights at the first); the return is the mean result against the random player."""
        previous = copy.deepcopy(net)
        if self.previous is not None:
            previous.load_state_dict(self.previous)
        rng = np.random.default_rng(seed)
        rates = games.results(
            envs,
            self.spec.agents,
            lambda e, p, s: evaluate(e, p, s, stop),
            lambda: greedy(net, device),
            {"random": lambda: games.random_player(rng, self.spec), "previous": lambda: greedy(previous, device)},
            seed,
        )
        if rates is None:  # stopped: the resumed run redoes this evaluation against the same previous
            return None
        self.previous = copy.deepcopy(net.state_dict())
        return {**games.summary(rates, self.spec.agents), **rates}

    def state_dict(self) -> dict[str, Any]:
        return {"previous": self.previous}

    def load_state_dict(self, state: dict[str, Any] | None) -> None:
        self.previous = None if state is None else state["previous"]
