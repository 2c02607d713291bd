"""Steps the training envs with the live policy and feeds each vector step to the replay strategy."""

from __future__ import annotations

from collections import deque
from time import perf_counter

import numpy as np
import torch

from rlfw.env.masks import KEY, next_masks, valid_actions
from rlfw.env.snapshot import NotRestorable, restore, snapshot
from rlfw.env.spec import env_action
from rlfw.explore.act import act
from rlfw.network.driver import driver
from rlfw.network.normalize import normalizers
from rlfw.run.timings import Timings


class Collector:
    def __init__(self, envs, net, explore, replay, seed: int, device: torch.device, world: int = 1, league=None):
        self.envs, self.net, self.explore, self.replay, self.device = envs, net, explore, replay, device
        self.league = league  # a game's past versions, who play some seats (rlfw.run.league); None: self-play only
        self.world = world  # processes stepping envs in lockstep (trainer.strategy=ddp): env steps count them all
        self.obs, info = envs.reset(seed=seed)
        # the env's invalid-action masks (rlfw.env.masks): the actions open in self.obs; None without
        self.waits = getattr(envs, "waits", False)  # rows may wait with every action closed (rlfw.env.agents)
        self.mask = valid_actions(info, 0, envs.single_action_space, self.waits) if KEY in info else None
        self.num_envs = envs.num_envs  # rows: each copy's agents (rlfw.env.agents), one for a one-agent env
        self.copies = self.num_envs // getattr(envs, "rows_per_env", 1)  # env steps count the copies' steps
        self.num_actions = getattr(envs.single_action_space, "n", None)  # discrete spaces
        self.to_env = env_action(envs.single_action_space)
        self.normalizers = normalizers(net)  # network.normalize_obs: statistics of what the policy acts on
        self.policy = driver(net, self.num_envs, device)  # what acting carries between steps (a recurrent state)
        self.env_steps = 0
        self.episode_return = np.zeros(self.num_envs)
        self.episode_length = np.zeros(self.num_envs, dtype=np.int64)
        # the last 100 training episodes (raw rewards): the summary's CleanRL-style return; rows and progress use 20
        self.recent_returns: deque[float] = deque(maxlen=100)
        self.recent_lengths: deque[int] = deque(maxlen=100)
        self.timings = Timings()  # acting and the envs' step here; the experience stream adds the rest

    def collect(self, steps: int, limit: int | None = None) -> None:
        """Up to ``steps`` vector steps, fewer if the env steps reach ``limit``.

        One no-grad scope for them all: entering one at every vector step, right after the envs' step,
        costs a measurable share of a collector step."""
        with torch.no_grad():
            for _ in range(steps):
                if limit is not None and self.env_steps >= limit:
                    return
                self._step()

    def _step(self) -> None:
        """One vector step: act, step the envs, hand the step to the replay.

        numpy from the envs to the replay (explore rules return numpy, replays take it); torch only
        for the network: right after the envs' threads ran, a torch call costs several times a numpy
        call (docs/design.md, "Speed choices, and why")."""
        obs = self.obs
        start = perf_counter()
        for norm in self.normalizers:
            norm.update(obs)
        before = self.policy.before()
        action, extras = act(self.policy, self.explore, obs, self.env_steps, self.device, self.num_actions, self.mask)
        stored = self.mask  # the actions open to the live policy: a past version's seats have none
        if self.league is not None:
            action, stored = self.league.play(obs, action, self.mask, self.env_steps)
        acted = perf_counter()
        next_obs, reward, terminated, truncated, info = self.envs.step(self.to_env(action))
        self.timings.act += acted - start
        self.timings.env += perf_counter() - acted
        next_obs = next_obs.copy()  # the vector env may reuse its buffer (``copy=False``): the collector keeps it
        final, done = next_obs, terminated | truncated
        ended = done.any()
        if ended:  # an episode ended: its true last observation is in info
            final = next_obs.copy()
            final[done] = np.stack(info["final_obs"][done])
        self.env_steps += self.copies * self.world
        self.replay.env_steps = self.env_steps  # the one clock: what annealing parts read, all ranks counted
        step = {
            "obs": obs,
            "action": action,
            "reward": reward.astype(np.float32, copy=False),
            "next_obs": final,
            "terminated": terminated,
            "truncated": truncated,
            **extras,
            **before,
            **self.policy.after(),
        }
        if self.mask is not None:  # the actions open in obs, and in the observation after it (the targets' max)
            after = valid_actions(info, self.env_steps, self.envs.single_action_space, self.waits)
            next_mask = next_masks(after, info, done) if ended else after
            step["mask"], step["next_mask"] = (
                stored,
                next_mask if self.league is None else self.league.closed(next_mask),
            )
            self.mask = after
        self.replay.add(step)
        self.policy.ended(done)
        if self.league is not None:
            self.league.ended(done, self.env_steps)
        self.obs = next_obs
        self._track_episodes(reward, done, ended)

    def recent(self, episodes: int = 20) -> tuple[list[float], list[int]]:
        """Returns and lengths of the last ``episodes`` training episodes."""
        return list(self.recent_returns)[-episodes:], list(self.recent_lengths)[-episodes:]

    def state_dict(self) -> dict:
        """The envs (``None`` when they cannot be restored, and ``envs_unsaved`` says why), the
        observation the next step acts on, and the episode statistics."""
        try:
            envs, unsaved = snapshot(self.envs), None
        except NotRestorable as why:
            envs, unsaved = None, str(why)
        return {
            "envs": envs,
            "envs_unsaved": unsaved,
            "obs": torch.from_numpy(self.obs),
            "mask": None if self.mask is None else torch.from_numpy(self.mask),
            "env_steps": self.env_steps,
            "episode_return": torch.from_numpy(self.episode_return.copy()),
            "episode_length": torch.from_numpy(self.episode_length.copy()),
            "recent_returns": list(self.recent_returns),
            "recent_lengths": list(self.recent_lengths),
            "memory": self.policy.state_dict(),
            "league": None if self.league is None else self.league.state_dict(),
        }

    def load_state_dict(self, state: dict) -> None:
        """Continues where ``state`` was taken; envs that were not saved keep the episodes they were
        reset to (the replay ends its last stored episodes: ``end_episodes``)."""
        self.env_steps = state["env_steps"]
        self.recent_returns.extend(state["recent_returns"])
        self.recent_lengths.extend(state["recent_lengths"])
        if self.league is not None and state.get("league") is not None:
            self.league.load_state_dict(state["league"])
        if state["envs"] is None:
            self.replay.end_episodes()
            return
        restore(self.envs, state["envs"])
        self.policy.load_state_dict(state["memory"])
        self.obs = state["obs"].numpy()
        self.mask = None if state.get("mask") is None else state["mask"].numpy()  # a checkpoint before masks: None
        self.episode_return = state["episode_return"].numpy().copy()
        self.episode_length = state["episode_length"].numpy().copy()

    def _track_episodes(self, reward: np.ndarray, done: np.ndarray, ended: bool) -> None:
        self.episode_return += reward
        self.episode_length += 1
        if ended:
            self.recent_returns.extend(self.episode_return[done].tolist())
            self.recent_lengths.extend(self.episode_length[done].tolist())
            self.episode_return[done] = 0.0
            self.episode_length[done] = 0
