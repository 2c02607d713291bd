"""On-policy rollout: ``num_steps x num_envs`` steps, GAE, then ``epochs x minibatches`` batches."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch

from rlfw.batch import Batch, to_device
from rlfw.errors import require
from rlfw.registry import register
from rlfw.replay.contract import Replay
from rlfw.replay.gae import gae
from rlfw.replay.reward_scale import RewardScale
from rlfw.replay.steps import StepStore


@register("replay", "rollout")
class Rollout(Replay):
    provides = frozenset({"obs", "action", "logp", "value", "advantage", "returns"})
    needs_extras = frozenset({"logp", "value"})

    def __init__(
        self,
        num_envs: int,
        gamma: float,
        total_env_steps: int,
        num_steps: int = 128,
        epochs: int = 4,
        minibatches: int = 4,
        gae_lambda: float = 0.95,
        normalize_advantage: bool = True,
        normalize_reward: bool = False,
        reward_clip: float = 10.0,
    ):
        for key, value in (("num_steps", num_steps), ("epochs", epochs), ("minibatches", minibatches)):
            require(value >= 1, f"replay.{key}", value, "must be >= 1")
        require(0 <= gae_lambda <= 1, "replay.gae_lambda", gae_lambda, "must be in [0, 1]")
        require(
            (num_steps * num_envs) % minibatches == 0,
            "replay.minibatches",
            minibatches,
            f"must divide the rollout size num_steps * num_envs = {num_steps * num_envs}",
        )
        require(
            not normalize_advantage or num_steps * num_envs // minibatches >= 2,
            "replay.minibatches",
            minibatches,
            "a minibatch of one sample cannot normalise its advantages (std of one value);"
            " use fewer minibatches or replay.normalize_advantage=false",
        )
        require(
            num_steps * num_envs <= total_env_steps,
            "replay.num_steps",
            num_steps,
            f"one rollout of num_steps * num_envs = {num_steps * num_envs} env steps exceeds total_env_steps={total_env_steps}",
        )
        require(reward_clip > 0, "replay.reward_clip", reward_clip, "scaled rewards are clipped to +-reward_clip, > 0")
        self.gamma, self.gae_lambda, self.normalize_advantage = gamma, gae_lambda, normalize_advantage
        self.reward_scale = RewardScale(num_envs, gamma, reward_clip) if normalize_reward else None
        self.epochs, self.minibatches = epochs, minibatches
        self.collect_steps, self.num_envs = num_steps, num_envs
        self.store = StepStore(num_steps, num_envs)
        self.finals: list[tuple[int, torch.Tensor, torch.Tensor]] = []  # (row, envs, final obs) of episodes ended
        self.last_next_obs = torch.empty(0)  # the observation after the rollout's last step, set by add
        self.stop_epochs = False

    def add(self, step: dict[str, np.ndarray]) -> None:
        """Stores the step without its ``next_obs``: GAE bootstraps from V(next_obs), which is the next
        step's stored value, except after an episode's last step (its true final observation, kept
        here) and after the rollout's last step (the observation the next rollout starts from)."""
        step = dict(step)
        next_obs = step.pop("next_obs")
        if self.reward_scale is not None:
            step["reward"] = self.reward_scale(step["reward"], step["terminated"], step["truncated"])
        row = self.store.add(step)
        if row == 0:
            self.finals = []
        done = step["terminated"] | step["truncated"]
        if done.any():
            envs = done.nonzero()[0]
            self.finals.append((row, torch.from_numpy(envs), torch.from_numpy(next_obs[envs])))
        self.last_next_obs = torch.from_numpy(next_obs)

    def ready(self) -> bool:
        return self.store.size == self.store.rows

    def batches(self, net) -> Iterator[Batch]:
        d = self.store.data
        next_value = torch.empty_like(d["value"])
        next_value[:-1] = d["value"][1:]  # V(s_t+1), computed when acting on s_t+1
        device = next(net.parameters()).device
        with torch.no_grad():  # the rest: one forward over the last step's next_obs and the final observations
            value = net(torch.cat([self.last_next_obs, *(obs for _, _, obs in self.finals)]).to(device))["value"]
        value = value.to("cpu", torch.float32)  # the stored values' dtype, from any autocast's (bf16-mixed)
        next_value[-1], start = value[: self.num_envs], self.num_envs
        for row, envs, _ in self.finals:
            next_value[row, envs] = value[start : start + len(envs)]
            start += len(envs)
        advantage = gae(
            d["reward"], d["value"], next_value, d["terminated"], d["truncated"], self.gamma, self.gae_lambda
        )
        data = Batch(
            obs=d["obs"],
            action=d["action"],
            logp=d["logp"],
            value=d["value"],
            advantage=advantage,
            returns=advantage + d["value"],
        )
        # One transfer of the whole rollout, not one per minibatch: on a GPU the minibatches are
        # gathered there (a no-op on the CPU).
        data = to_device(Batch({k: v.flatten(0, 1) for k, v in data.items()}), device)
        self.store.size = 0  # the next rollout overwrites this one
        self.stop_epochs = False
        size = len(data.action) // self.minibatches
        for _ in range(self.epochs):
            order = torch.randperm(len(data.action)).to(device)  # drawn on the CPU: the same order on any device
            for i in range(self.minibatches):
                rows = order[i * size : (i + 1) * size]
                # index_select, not v[rows]: the same copy without advanced indexing's slower general path
                batch = Batch({k: v.index_select(0, rows) for k, v in data.items()})
                if self.normalize_advantage:
                    batch["advantage"] = (batch.advantage - batch.advantage.mean()) / (batch.advantage.std() + 1e-8)
                yield batch
                if self.stop_epochs:
                    return

    def state_dict(self) -> dict:
        finals = [{"row": row, "envs": envs, "obs": obs} for row, envs, obs in self.finals]
        return {
            "store": self.store.state_dict(),
            "finals": finals,
            "last_next_obs": self.last_next_obs,
            "stop_epochs": self.stop_epochs,
            "reward_scale": None if self.reward_scale is None else self.reward_scale.state_dict(),
        }

    def load_state_dict(self, state: dict) -> None:
        self.store.load_state_dict(state["store"])
        self.finals = [(f["row"], f["envs"], f["obs"]) for f in state["finals"]]
        self.last_next_obs, self.stop_epochs = state["last_next_obs"], state["stop_epochs"]
        if self.reward_scale is not None:
            self.reward_scale.load_state_dict(state["reward_scale"])

    def end_episodes(self) -> None:
        self.store.end_episodes()

    def feedback(self, batch: Batch, out: dict[str, torch.Tensor]) -> None:
        """A loss may end this rollout's epochs early (PPO's target-KL stop)."""
        if "stop_epochs" in out:
            self.stop_epochs = bool(out["stop_epochs"])
