"""A PettingZoo Parallel env's agents as the rows of one gymnasium vector env: ``copies`` copies of the
env, each agent of each copy one row (copy-major: copy 0's agents, then copy 1's), so the collector, the
replays and the losses, which see rows, train one policy shared by every agent (parameter sharing).

An episode ends for all of a copy's agents at once, and the copy resets in the same step (gymnasium's
same-step autoreset: the final observations in ``info["final_obs"]``). With ``agent_id`` each row's
observation ends with its agent's one-hot index, so a shared policy can act differently per agent. With
``state`` each row is the packed Dict ``{"obs": the agent's, "state": the env's global state()}``
(``rlfw.env.packed``'s layout), for a critic that reads the state (MAPPO). Masks
from a Dict observation's ``action_mask`` key, or an agent's ``info["action_mask"]``, are stacked into
``info["action_mask"]`` as ``rlfw.env.masks`` gives them for one agent.

A turn-based game (``turns``: an AEC env through PettingZoo's ``turn_based_aec_to_parallel``) is
played by self-play: its agents are seats, each one row, and a step is the move of the seat whose turn
it is; the other seats' rows wait, with every action closed in their masks (the losses leave a row
without an open action out, and GAE runs over each seat's own moves: ``rlfw.replay.turns``). The env's
rewards reach every seat's row at the step they are given: a game's result at its last step.

With ``leave``, an agent may leave its copy's episode before the others (it dies, or is done): its row
ends its episode at that step (its final observation in ``info["final_obs"]``) and waits, with a zero
observation and every action closed, until the copy's episode ends. Masks are then always given (all
open where the env has none), so the losses can leave a waiting row out.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, cast

import gymnasium as gym
import numpy as np

from rlfw.env.masks import KEY, mask_size
from rlfw.errors import EnvError

STATE = "state"  # a row's key for its env's global state (a critic's input: MAPPO)


def joined(*spaces: gym.spaces.Box) -> gym.spaces.Box:
    """Flat Boxes one after another, as float32."""
    low = np.concatenate([s.low.reshape(-1).astype(np.float32) for s in spaces])
    high = np.concatenate([s.high.reshape(-1).astype(np.float32) for s in spaces])
    return gym.spaces.Box(low, high, dtype=np.float32)


def row_spaces(
    space: gym.spaces.Box, agents: int, agent_id: bool, state: gym.spaces.Box | None
) -> tuple[gym.spaces.Box, gym.spaces.Dict | None]:
    """One row's observation space (the agent's, then ``agents`` one-hot columns if ``agent_id``, then the
    global ``state``'s), and the Dict it packs when there is a state."""
    own = joined(space, gym.spaces.Box(0, 1, (agents,))) if agent_id else space
    if state is None:
        return own, None
    return joined(own, state), gym.spaces.Dict({"obs": own, STATE: state})


class AgentRows(gym.vector.VectorEnv):
    """``copies`` Parallel envs made by ``make``, their ``agents`` as rows.

    ``observe(obs, info)`` reads one agent's observation and info as (observation, mask or None): it
    takes the mask out of a Dict observation or the info (``rlfw.env.pettingzoo`` picks it)."""

    def __init__(
        self,
        make: Callable[[], Any],
        copies: int,
        observe: Callable[[Any, dict], tuple[np.ndarray, np.ndarray | None]],
        observation_space: gym.spaces.Box,
        action_space: gym.Space,
        agent_id: bool = False,
        state: gym.spaces.Box | None = None,
        turns: bool = False,
        leave: bool = False,
    ):
        self.envs = [make() for _ in range(copies)]
        self.agents: list[str] = list(self.envs[0].possible_agents)
        self.rows_per_env = len(self.agents)  # rows of one copy: the env steps a vector step counts are copies
        self.num_envs = copies * self.rows_per_env
        self.observe, self.agent_id, self.state, self.turns = observe, agent_id, state is not None, turns
        self.leave = leave
        self.waits = turns or leave  # rows may have no open action: a seat off its turn, an agent that left
        width = mask_size(action_space)
        # what a row whose agent left reads: zeros of the agent's observation, every action closed
        self.absent = (
            np.zeros(observation_space.shape, observation_space.dtype),
            None if width is None else np.zeros(width, dtype=bool),
        )
        self.opened = None if width is None else np.ones(width, dtype=bool)  # an env without masks: all open
        self.single_observation_space, self.packed = row_spaces(observation_space, self.rows_per_env, agent_id, state)
        self.single_action_space = action_space
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(action_space, self.num_envs)
        self.metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}
        self.ids = np.eye(self.rows_per_env, dtype=np.float32)  # each agent's one-hot index, a copy's rows in order
        row = self.single_observation_space
        self.obs = np.zeros((self.num_envs, *row.shape), row.dtype)
        self.masks: np.ndarray | None = None

    def _rows(self, copy: int) -> slice:
        return slice(copy * self.rows_per_env, (copy + 1) * self.rows_per_env)

    def _read(
        self, copy: int, obs: dict, infos: dict, present: Collection[str] | None = None
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Copy ``copy``'s rows: its agents' observations (with their ids) and masks. An agent not
        ``present`` (those in ``obs``, by default) has left: zeros, every action closed."""
        there = obs.keys() if present is None else present
        read = [
            self.observe(obs[agent], infos.get(agent, {})) if agent in there else self.absent for agent in self.agents
        ]
        rows = np.stack([o for o, _ in read]).astype(self.obs.dtype, copy=False)
        if self.agent_id:
            rows = np.concatenate([rows, self.ids], axis=1)
        if self.state:
            state = np.asarray(self.envs[copy].state(), dtype=np.float32).reshape(1, -1)
            rows = np.concatenate([rows.reshape(len(rows), -1), np.repeat(state, len(rows), 0)], axis=1)
        masks = None
        if self.waits:  # an absent agent's mask is closed, not None
            masks = np.stack([cast(np.ndarray, self.opened if m is None else m) for _, m in read])
        elif read[0][1] is not None:
            masks = np.stack([cast(np.ndarray, m) for _, m in read])
        if self.turns:  # only the seat to move has open actions
            mover = np.array([agent == self.envs[copy].unwrapped.agent_selection for agent in self.agents])
            masks = cast(np.ndarray, masks) & mover[:, None]
        return rows, masks

    def _store(self, copy: int, obs: np.ndarray, masks: np.ndarray | None) -> None:
        self.obs[self._rows(copy)] = obs
        if masks is not None:
            if self.masks is None:
                self.masks = np.ones((self.num_envs, masks.shape[1]), dtype=bool)
            self.masks[self._rows(copy)] = masks

    def _info(self) -> dict:
        return {} if self.masks is None else {KEY: self.masks.copy()}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        for copy, env in enumerate(self.envs):
            obs, infos = env.reset(seed=None if seed is None else seed + copy, options=options)
            self._store(copy, *self._read(copy, obs, infos))
        return self.obs.copy(), self._info()

    def step(self, actions: np.ndarray):
        actions = np.asarray(actions)
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        truncated = np.zeros(self.num_envs, dtype=bool)
        final_obs, final_masks = None, None  # made at the first copy whose episode ended
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
                self._store(copy, *self._read(copy, obs, infos))
                continue
            if env.agents and not self.leave:
                left = [agent for agent, d in zip(self.agents, done, strict=True) if d]
                raise EnvError(
                    f"{', '.join(left)} left copy {copy}'s episode before the other agents; env.agents_leave=true"
                    " lets agents leave (their rows wait, out of the loss, until the episode ends)"
                )
            if final_obs is None:
                final_obs = self.obs.copy()
                final_masks = None if self.masks is None else self.masks.copy()
            final, masks = self._read(copy, obs, infos)  # the last observation of each agent whose episode ended
            final_obs[rows] = final
            if final_masks is not None and masks is not None:
                final_masks[rows] = masks
            if env.agents:  # some agents left, the others play on
                self._store(copy, *self._read(copy, obs, infos, env.agents))
            else:
                self._store(copy, *self._read(copy, *env.reset()))
        info = self._info()
        if final_obs is not None:
            info["final_obs"] = final_obs
            if final_masks is not None:
                info["final_info"] = {KEY: final_masks}
        return self.obs.copy(), rewards, terminated, truncated, info

    def close(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()
