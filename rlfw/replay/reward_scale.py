"""Reward scaling for training (``replay.normalize_reward``): each reward divided by the running std of
the discounted return, then clipped, as gymnasium's ``NormalizeReward`` (same-step autoreset) and SB3's
``VecNormalize`` do. Only what the losses learn from is scaled: episode returns and evaluations stay
raw. Its statistics are part of the replay's state, so a resumed run goes on with them."""

from __future__ import annotations

import numpy as np
import torch
from gymnasium.wrappers.utils import RunningMeanStd

EPSILON = 1e-8  # gymnasium's NormalizeReward


class RewardScale:
    def __init__(self, num_envs: int, gamma: float, clip: float):
        self.gamma, self.clip = gamma, clip
        self.returns = np.zeros(num_envs)  # each env's discounted return so far
        self.stats = RunningMeanStd(shape=())

    def __call__(self, reward: np.ndarray, terminated: np.ndarray, truncated: np.ndarray) -> np.ndarray:
        self.returns = self.returns * self.gamma * (1 - terminated) + reward
        self.stats.update(self.returns)
        self.returns[terminated | truncated] = 0.0  # the env has reset: a new return starts
        scaled = reward / np.sqrt(self.stats.var + EPSILON)
        return np.clip(scaled, -self.clip, self.clip).astype(reward.dtype)

    def state_dict(self) -> dict:
        s = self.stats
        return {
            "returns": torch.from_numpy(self.returns.copy()),
            "mean": float(s.mean),
            "var": float(s.var),
            "count": float(s.count),
        }

    def load_state_dict(self, state: dict) -> None:
        self.returns = state["returns"].numpy().copy()
        self.stats.mean, self.stats.var = np.array(state["mean"]), np.array(state["var"])
        self.stats.count = float(state["count"])
