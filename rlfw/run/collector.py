"""Steps the training envs with the live policy and feeds each vector step to the replay strategy."""

from __future__ import annotations

from collections import deque
from time import perf_counter

import numpy as np
import torch

from rlfw.clock import Clock
from rlfw.env.snapshot import NotRestorable, restore, snapshot
from rlfw.env.spec import ACTING, EnvSpec, env_action
from rlfw.explore.act import act
from rlfw.network.driver import driver
from rlfw.network.normalize import normalizers
from rlfw.run.timings import Timings


class Collector:
    """Acts in ``envs`` (reset here with ``seed``), advancing ``clock`` by the env steps of every vector
    step: the copies of the env (``spec.rows_per_copy`` rows each) times the ``world`` of processes stepping
    envs in lockstep (``trainer.strategy=ddp``). ``timings``: where acting and the envs' steps go."""

    def __init__(
        self,
        envs,
        net,
        explore,
        replay,
        spec: EnvSpec,
        clock: Clock,
        timings: Timings,
        seed: int,
        device: torch.device,
        world: int = 1,
    ):
        self.envs, self.net, self.explore, self.replay, self.device = envs, net, explore, replay, device
        self.clock, self.timings = clock, timings
        obs, info = envs.reset(seed=seed)
        self.obs = obs.copy()  # the vector env may reuse its buffer (``copy=False``), which the first step overwrites
        self.acting = info.get(ACTING)  # which rows act on self.obs, where the env says some do not
        self.num_envs = envs.num_envs  # rows
        self.steps_each = envs.num_envs // spec.rows_per_copy * world  # env steps a vector step counts
        self.num_actions = spec.num_actions if spec.discrete else None  # for rules that draw random actions
        self.to_env = env_action(envs.single_action_space)
        self.normalizers = normalizers(net)  # network.normalize_obs: statistics of what the policy acts on
        self.policy = driver(net, self.num_envs, device)  # what acting carries between steps (a recurrent state)
        self.episode_return = np.zeros(self.num_envs)
        self.episode_length = np.zeros(self.num_envs, dtype=np.int64)
        # the last 100 training episodes (raw rewards): the summary's CleanRL-style return; rows and progress use 20
        self.recent_returns: deque[float] = deque(maxlen=100)
        self.recent_lengths: deque[int] = deque(maxlen=100)

    def collect(self, steps: int, limit: int | None = None) -> None:
        """Up to ``steps`` vector steps, fewer if the env steps reach ``limit``.

        One inference-mode scope for them all: entering one at every vector step, right after the envs'
        step, costs a measurable share of a collector step; inference mode, not no_grad, also skips
        autograd's bookkeeping on every op."""
        with torch.inference_mode():
            for _ in range(steps):
                if limit is not None and self.clock.env_steps >= limit:
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
        action, extras = act(self.policy, self.explore, obs, self.clock.env_steps, self.device, self.num_actions)
        self.clock.env_steps += self.steps_each  # the step taken counts from here on (a league keeps by it)
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
        reward = reward.astype(np.float32, copy=False)
        step = {"obs": obs, "action": action, "reward": reward, "next_obs": final, "terminated": terminated}
        step |= {"truncated": truncated, **extras, **before, **self.policy.after()}
        acting = info.get(ACTING)
        if acting is not None:  # rows that do not all act: which acted, and which act on next_obs
            step["acting"], step["next_acting"] = self.acting, acting
            self.acting = acting
        self.replay.add(step)
        self.policy.ended(done)
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
            "acting": None if self.acting is None else torch.from_numpy(self.acting),
            "episode_return": torch.from_numpy(self.episode_return.copy()),
            "episode_length": torch.from_numpy(self.episode_length.copy()),
            "recent_returns": list(self.recent_returns),
            "recent_lengths": list(self.recent_lengths),
            "memory": self.policy.state_dict(),
        }

    def load_state_dict(self, state: dict) -> None:
        """Continues where ``state`` was taken; envs that were not saved keep the episodes they were
        reset to (the replay ends its last stored episodes: ``end_episodes``)."""
        self.recent_returns.extend(state["recent_returns"])
        self.recent_lengths.extend(state["recent_lengths"])
        if state["envs"] is None:
            self.replay.end_episodes()
            return
        restore(self.envs, state["envs"])
        self.policy.load_state_dict(state["memory"])
        self.obs = state["obs"].numpy()
        self.acting = None if state["acting"] is None else state["acting"].numpy()
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
