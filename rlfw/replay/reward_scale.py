"""Reward scaling for training (``replay.normalize_reward``): each reward divided by the running std of
the discounted return, then clipped, as gymnasium's ``NormalizeReward`` (same-step autoreset) and SB3's
``VecNormalize`` do. Only what the losses learn from is scaled: episode returns and evaluations stay
raw. Its statistics are part of the replay's state, so a resumed run goes on with them."""

from __future__ import annotations

import math

import numpy as np
import torch
from gymnasium.wrappers.utils import update_mean_var_count_from_moments

EPSILON = 1e-8  # gymnasium's NormalizeReward


class RewardScale:
    def __init__(self, num_envs: int, gamma: float, clip: float):
        self.gamma, self.clip = gamma, clip
        self.returns = np.zeros(num_envs)  # each env's discounted return so far
        self.mean, self.var, self.count = 0.0, 1.0, 1e-4  # of the returns: gymnasium's RunningMeanStd, in floats

    def __call__(self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> np.ndarray:
        self.returns = self.returns * self.gamma * (1 - terminated) + reward
        self.update(self.returns)
        self.returns[terminated | truncated] = 0.0  # the env has reset: a new return starts
        scaled = reward / math.sqrt(self.var + EPSILON)
        return np.clip(scaled, -self.clip, self.clip).astype(reward.dtype)

    def update(self, returns: np.ndarray) -> None:
        """The parallel update of mean and variance; for one env, Welford's in Python floats (``np.var`` of
        one value costs more than the whole update)."""
        if len(returns) == 1:
            x, total = float(returns[0]), self.count + 1
            delta = x - self.mean
            self.mean += delta / total
            self.var = (self.var * self.count + delta * (x - self.mean)) / total
            self.count = total
            return
        mean, var, count = update_mean_var_count_from_moments(
            self.mean, self.var, self.count, returns.mean(), returns.var(), len(returns)
        )
        self.mean, self.var, self.count = float(mean), float(var), float(count)

    def state_dict(self) -> dict:
        return {
            "returns": torch.from_numpy(self.returns.copy()),
            "mean": self.mean,
            "var": self.var,
            "count": self.count,
        }

    def load_state_dict(self, state: dict) -> None:
        self.returns = state["returns"].numpy().copy()
        self.mean, self.var, self.count = float(state["mean"]), float(state["var"]), float(state["count"])
