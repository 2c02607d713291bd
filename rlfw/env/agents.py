"""A PettingZoo Parallel env's agents as the rows of one gymnasium vector env: ``copies`` copies of the
env, each agent of each copy one row (copy-major: copy 0's agents, then copy 1's), so the collector, the
replays and the losses, which see rows, train one policy shared by every agent (parameter sharing).

An episode ends for all of a copy's agents at once, and the copy resets in the same step (gymnasium's
same-step autoreset: the final observations in ``info["final_obs"]``). A row is one packed observation
(``rlfw.env.packed``) when it has more than the agent's own: with ``agent_id`` the agent's one-hot index
after it, with ``state`` the env's global ``state()`` as the key ``state`` (a critic's input: MAPPO), and
with masks the open actions as the part ``action_mask`` (``rlfw.env.masks``).

Whether a row acts this step is its own field, ``info["acting"]``, given where rows may not act:

    turns   a turn-based game (an AEC env through PettingZoo's ``turn_based_aec_to_parallel``), played by
            self-play: its agents are seats, each one row, and a step is the move of the seat whose turn it
            is; the other seats' rows do not act. The env's rewards reach every seat's row at the step they
            are given: a game's result at its last step.
    leave   an agent may leave its copy's episode before the others (it dies, or is done): its row ends its
            episode at that step (its final observation in ``info["final_obs"]``) and does not act, with a
            zero observation, until the copy's episode ends.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, cast

import gymnasium as gym
import numpy as np

from rlfw.env.masks import OBSERVATION, mask_size, open_somewhere, read
from rlfw.env.packed import KEY, STATE, pack
from rlfw.env.rows import Reading, RowsEnv, row_layout
from rlfw.env.spec import ACTING
from rlfw.errors import EnvError


class AgentRows(RowsEnv):
    """``copies`` Parallel envs made by ``make``, their agents as rows, each agent's observation read by
    ``observe``."""

    def __init__(
        self,
        make: Callable[[], Any],
        copies: int,
        observe: Reading,
        action_space: gym.Space,
        agent_id: bool = False,
        global_state: gym.spaces.Box | None = None,
        turns: bool = False,
        leave: bool = False,
    ):
        self.envs = [make() for _ in range(copies)]
        self.agents: list[str] = list(self.envs[0].possible_agents)
        self.per_copy = len(self.agents)
        self.num_envs = copies * self.per_copy
        self.observe, self.agent_id, self.turns, self.leave = observe, agent_id, turns, leave
        self.global_state = global_state
        masks = mask_size(action_space) if observe.mask != "none" else None
        observation_space = observe.space
        self.single_observation_space, self.parts = row_layout(
            observation_space, self.per_copy, agent_id, global_state, masks
        )
        self.single_action_space = action_space
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(action_space, self.num_envs)
        self.metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}
        self.ids = np.eye(self.per_copy, dtype=np.float32)  # each agent's one-hot index, a copy's rows in order
        # what a row whose agent left reads: zeros of the agent's observation, no action open
        self.absent = (
            np.zeros(observation_space.shape, observation_space.dtype),
            None if masks is None else np.zeros(masks, dtype=bool),
        )
        row = self.single_observation_space
        self.obs = np.zeros((self.num_envs, *row.shape), row.dtype)
        self.acting = np.ones(self.num_envs, dtype=bool)

    def _rows(self, copy: int) -> slice:
        return slice(copy * self.per_copy, (copy + 1) * self.per_copy)

    def _read(
        self, copy: int, obs: dict, infos: dict, present: Collection[str] | None = None, final: bool = False
    ) -> np.ndarray:
        """Copy ``copy``'s rows: its agents' observations (with their ids, the global state, the open actions),
        and which of them act, into ``self.acting`` (not for an episode's ``final`` observations, which no
        one acts on). An agent not ``present`` (those in ``obs``, by default) has left: zeros, no action
        open, not acting."""
        there = obs.keys() if present is None else present
        read = [
            self._observe(obs[agent], infos.get(agent, {})) if agent in there else self.absent for agent in self.agents
        ]
        own = np.stack([o for o, _ in read])
        if self.agent_id:
            own = np.concatenate([own.reshape(len(own), -1), self.ids], axis=1)
        acting = np.array([agent in there for agent in self.agents])
        if self.turns:  # only the seat to move acts
            acting &= np.array([agent == self.envs[copy].unwrapped.agent_selection for agent in self.agents])
        if not final:
            self.acting[self._rows(copy)] = acting
        if not self.parts:
            return own
        keys = {OBSERVATION: own.reshape(len(own), -1)}
        if self.global_state is not None:
            shared = np.asarray(self.envs[copy].state(), dtype=np.float32).reshape(1, -1)
            keys[STATE] = np.repeat(shared, len(own), 0)
        if self.absent[1] is not None:
            masks = np.stack([cast(np.ndarray, m) for _, m in read])
            if not final:
                self._check_open(copy, masks, acting)
            keys[KEY] = masks
        return pack(keys, self.parts, np.dtype(np.float32))

    def _observe(self, obs: Any, info: dict) -> tuple[np.ndarray, np.ndarray | None]:
        """One agent's observation and info as (observation, open actions or None), as ``observe`` says."""
        how = self.observe
        seen = obs["observation"] if how.classic else obs
        seen = np.asarray(seen if how.flatten is None else gym.spaces.flatten(how.flatten, seen))
        return seen, None if how.mask == "none" else read(how.mask, obs, info)

    def _check_open(self, copy: int, masks: np.ndarray, acting: np.ndarray) -> None:
        """A row that acts with no action open ends the run in one line."""
        for agent, mask, acts in zip(self.agents, masks, acting, strict=True):
            if acts and not open_somewhere(mask, self.single_action_space):
                raise EnvError(
                    f"{agent}'s action mask in copy {copy} leaves no action open on its turn; every observation an"
                    " agent acts on needs one (an env whose game is over ends the episode)"
                )

    def _info(self) -> dict:
        return {ACTING: self.acting.copy()} if self.turns or self.leave else {}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        for copy, env in enumerate(self.envs):
            obs, infos = env.reset(seed=None if seed is None else seed + copy, options=options)
            self.obs[self._rows(copy)] = self._read(copy, obs, infos)
        return self.obs.copy(), self._info()

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        final_obs = None  # made at the first copy whose episode ended
        for copy, env in enumerate(self.envs):
            rows = self._rows(copy)
            live = list(env.agents)
            obs, reward, term, trunc, infos = env.step(
                {agent: actions[rows][i] for i, agent in enumerate(self.agents) if agent in live}
            )
            for i, agent in enumerate(self.agents):
                rewards[rows.start + i] = reward.get(agent, 0.0)
                terminated[rows.start + i] = term.get(agent, False)
                truncated[rows.start + i] = trunc.get(agent, False)
            done = terminated[rows] | truncated[rows]
            if env.agents and not done.any():
                self.obs[rows] = self._read(copy, obs, infos)
                continue
            if env.agents and not self.leave:
                left = [agent for agent, d in zip(self.agents, done, strict=True) if d]
                raise EnvError(
                    f"{', '.join(left)} left copy {copy}'s episode before the other agents; env.agents_leave=true"
                    " lets agents leave (their rows do not act, out of the loss, until the episode ends)"
                )
            if final_obs is None:
                final_obs = self.obs.copy()
            final_obs[rows] = self._read(
                copy, obs, infos, final=True
            )  # the last observation of each agent whose episode ended
            if env.agents:  # some agents left, the others play on
                self.obs[rows] = self._read(copy, obs, infos, env.agents)
            else:
                self.obs[rows] = self._read(copy, *env.reset())
        info = self._info()
        if final_obs is not None:
            info["final_obs"] = final_obs
        return self.obs.copy(), rewards, terminated, truncated, info

    def close(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()

    def state_dict(self) -> dict[str, Any]:
        """Each copy's env as plain values (``rlfw.env.snapshot``: MPE's and the classic games' state is
        plain Python), the rows' observations and who acts on them."""
        import torch  # (resuming only: a config check imports the env options without torch)

        from rlfw.env.snapshot import env_state

        return {
            "envs": [env_state(env) for env in self.envs],
            "obs": torch.from_numpy(self.obs.copy()),
            "acting": torch.from_numpy(self.acting.copy()),
        }

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        from rlfw.env.snapshot import restore_env

        for env, layers in zip(self.envs, saved["envs"], strict=True):
            restore_env(env, layers)
        self.obs[...] = saved["obs"].numpy()
        self.acting[...] = saved["acting"].numpy()
