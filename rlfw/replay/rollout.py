"""On-policy rollout: ``num_steps x num_envs`` steps, GAE, then ``epochs x minibatches`` batches.

Steps taken with a recurrent policy (they carry its ``state``) are yielded as whole env columns
(``rlfw.replay.columns``), for the learner to unroll; any other steps as shuffled rows."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import numpy as np
import torch

from rlfw.batch import Batch, to_device
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.registry import register
from rlfw.replay.columns import columns, rows
from rlfw.replay.contract import Replay
from rlfw.replay.gae import gae
from rlfw.replay.reward_scale import RewardScale
from rlfw.replay.steps import StepStore


@register("replay", "rollout")
class Rollout(Replay):
    provides = frozenset({"obs", "action", "logp", "value", "advantage", "returns"})
    needs_extras = frozenset({"logp"})  # V(s) too when acting computed it; else one forward per rollout
    sequences = True  # keeps env columns in time order: a recurrent head can train on it

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
        spec: EnvSpec | None = None,
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
        copies = num_envs // (spec.rows_per_copy if spec is not None else 1)  # env steps count copies, not rows
        require(
            num_steps * copies <= total_env_steps,
            "replay.num_steps",
            num_steps,
            f"one rollout of num_steps * num_envs = {num_steps * copies} env steps exceeds total_env_steps={total_env_steps}",
        )
        require(reward_clip > 0, "replay.reward_clip", reward_clip, "scaled rewards are clipped to +-reward_clip, > 0")
        self.gamma, self.gae_lambda, self.normalize_advantage = gamma, gae_lambda, normalize_advantage
        self.reward_scale = RewardScale(num_envs, gamma, reward_clip) if normalize_reward else None
        self.epochs, self.minibatches = epochs, minibatches
        self.collect_steps, self.num_envs = num_steps, num_envs
        self.store = StepStore(num_steps, num_envs)
        # (row, envs, final obs, the policy's state after that step) of episodes ended; the state is a
        # recurrent policy's ([envs, S, hidden]), else None
        self.finals: list[tuple[int, torch.Tensor, torch.Tensor, torch.Tensor | None]] = []
        self.last_next_obs = torch.empty(0)  # the observation after the rollout's last step, set by add
        self.last_state: torch.Tensor | None = None  # a recurrent policy's state after it
        self.initial_state: torch.Tensor | None = None  # its state before the rollout's first step
        self.stop_epochs = False
        # which rows act on the observation after the rollout's last step, where rows do not all act
        self.last_acting: torch.Tensor | None = None

    def add(self, step: dict[str, np.ndarray]) -> None:
        """Stores the step without its ``next_obs``: GAE bootstraps from V(next_obs), which is the next
        step's stored value, except after an episode's last step (its true final observation, kept
        here) and after the rollout's last step (the observation the next rollout starts from)."""
        step = dict(step)
        next_obs = step.pop("next_obs")
        state, next_state = step.pop("state", None), step.pop("next_state", None)  # a recurrent policy's
        next_acting = step.pop("next_acting", None)  # where rows do not all act: who acts on next_obs
        if self.reward_scale is not None:
            step["reward"] = self.reward_scale(step["reward"], step["terminated"], step["truncated"])
        row = self.store.add(step)
        if row == 0:
            self.finals = []
            self.initial_state = None if state is None else torch.tensor(state)
        done = step["terminated"] | step["truncated"]
        if done.any():
            envs = done.nonzero()[0]
            after = None if next_state is None else torch.tensor(next_state[envs])
            self.finals.append((row, torch.from_numpy(envs), torch.from_numpy(next_obs[envs]), after))
        self.last_next_obs = torch.from_numpy(next_obs)
        self.last_acting = None if next_acting is None else torch.from_numpy(next_acting)
        self.last_state = None if next_state is None else torch.from_numpy(next_state)

    def ready(self) -> bool:
        return self.store.size == self.store.rows

    def batches(self, net) -> Iterator[Batch]:
        device = next(net.parameters()).device
        data, d = self._advantaged(net, device), self.store.data
        self.store.size = 0  # the next rollout overwrites this one
        self.stop_epochs = False
        # One transfer of the whole rollout, not one per minibatch: on a GPU the minibatches are
        # gathered there (a no-op on the CPU).
        if self.initial_state is None:  # shuffled steps
            data = to_device(Batch({k: v.flatten(0, 1) for k, v in data.items()}), device)
            units, cut = len(data.action), partial(rows, data)
        else:  # a recurrent policy's steps: shuffled env columns, each whole, with its first state
            data["episode_start"] = d["episode_start"]
            units, cut = self.num_envs, partial(columns, to_device(data, device), self.initial_state.to(device))
        for _ in range(self.epochs):
            order = torch.randperm(units).to(device)  # drawn on the CPU: the same order on any device
            for batch in cut(order, self.minibatches, self.normalize_advantage):
                yield batch
                if self.stop_epochs:
                    return

    def _advantaged(self, net, device: torch.device) -> Batch:
        """The rollout's steps with V(s) (computed now, where acting did not), GAE's advantages and returns,
        and which rows acted, where the env says some do not."""
        d = dict(self.store.data)
        if "value" in d:  # V(s_t), computed when acting on s_t (a shared trunk, a recurrent one)
            value = self.bootstrap_values(net, device)
        else:  # V of every step's observation and of the bootstrap ones, in one forward of the critic
            value = self.values(net, [d["obs"].flatten(0, 1), *self.bootstrap_obs()], device)
            d["value"], value = value[: d["reward"].numel()].view_as(d["reward"]), value[d["reward"].numel() :]
        next_value = torch.empty_like(d["value"])
        next_value[:-1] = d["value"][1:]  # V(s_t+1)
        next_value[-1], start = value[: self.num_envs], self.num_envs
        for row, envs, _, _ in self.finals:
            next_value[row, envs] = value[start : start + len(envs)]
            start += len(envs)
        moved = d.get("acting")  # over each row's own moves, where rows do not all act (rlfw.replay.gae)
        advantage = gae(
            d["reward"], d["value"], next_value, d["terminated"], d["truncated"], self.gamma, self.gae_lambda,
            moved, self.last_acting,
        )  # fmt: skip
        data = Batch(obs=d["obs"], action=d["action"], logp=d["logp"], value=d["value"], advantage=advantage)
        data["returns"] = advantage + d["value"]
        if moved is not None:  # the losses leave out the rows that did not act
            data["acting"] = moved
        return data

    def bootstrap_obs(self) -> list[torch.Tensor]:
        """The observation after the rollout's last step (one per env), then each ended episode's final one."""
        return [self.last_next_obs, *(f[2] for f in self.finals)]

    @staticmethod
    def values(net, obs: list[torch.Tensor], device: torch.device) -> torch.Tensor:
        """V(s) of ``obs`` (concatenated), from the critic alone where the head has ``state_value``; float32 on
        the CPU, the stored values' dtype, from any autocast's (bf16-mixed)."""
        x = torch.cat(obs).to(device)
        with torch.no_grad():
            value = net.state_value(x)
        return value.to("cpu", torch.float32)

    def bootstrap_values(self, net, device: torch.device) -> torch.Tensor:
        """V of the bootstrap observations (``bootstrap_obs``): one forward for them all. A recurrent
        policy reads them with its state after the step before (zeroed where the last step ended an
        episode: the next starts)."""
        if self.last_state is None:
            return self.values(net, self.bootstrap_obs(), device)
        obs = torch.cat(self.bootstrap_obs()).to(device)
        ended = self.store.data["terminated"][-1] | self.store.data["truncated"][-1]
        starts = torch.cat([ended, torch.zeros(len(obs) - self.num_envs, dtype=torch.bool)])
        state = torch.cat([self.last_state, *(s for *_, s in self.finals if s is not None)])
        with torch.no_grad():
            value = net(obs, state.to(device), starts.to(device))["value"]
        return value.to("cpu", torch.float32)  # the stored values' dtype, from any autocast's (bf16-mixed)

    def state_dict(self) -> dict:
        finals = [{"row": row, "envs": envs, "obs": obs, "state": state} for row, envs, obs, state in self.finals]
        return {
            "store": self.store.state_dict(),
            "finals": finals,
            "last_next_obs": self.last_next_obs,
            "last_state": self.last_state,
            "last_acting": self.last_acting,
            "initial_state": self.initial_state,
            "stop_epochs": self.stop_epochs,
            "reward_scale": None if self.reward_scale is None else self.reward_scale.state_dict(),
        }

    def load_state_dict(self, state: dict) -> None:
        self.store.load_state_dict(state["store"])
        self.finals = [(f["row"], f["envs"], f["obs"], f.get("state")) for f in state["finals"]]
        self.last_next_obs, self.stop_epochs = state["last_next_obs"], state["stop_epochs"]
        self.last_state, self.initial_state = state.get("last_state"), state.get("initial_state")
        self.last_acting = state.get("last_acting")
        if self.reward_scale is not None:
            self.reward_scale.load_state_dict(state["reward_scale"])

    def end_episodes(self) -> None:
        self.store.end_episodes()

    def feedback(self, batch: Batch) -> None:
        """A loss may end this rollout's epochs early (PPO's target-KL stop: the signal ``stop_epochs``)."""
        if "stop_epochs" in batch.signals:
            self.stop_epochs = bool(batch.signals["stop_epochs"])
