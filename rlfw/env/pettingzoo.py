"""Any PettingZoo env, its agents as rows of one vector env (``env=pettingzoo env.id=...``).

``env.id`` is an id of PettingZoo's registry (``butterfly/pistonball-v6``; ``pettingzoo.pprint_registry()``
lists them), or ``<module>:<function>`` for one it does not hold: a function or class of ``module`` that
makes the env (``mpe2.simple_spread_v3:parallel_env``). Every agent shares one policy, so every agent
needs the same observation and action spaces. A turn-based (AEC) game (``classic/connect_four-v3``) is
played by self-play, its seats as rows that act on their turn (``rlfw.env.agents``' ``turns``). With
``agents_leave`` an agent may leave an episode before the others; its row does not act until the episode
ends. Masks are read as ``rlfw.env.masks`` reads a gymnasium env's (obs key or info).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import partial
from typing import Any, cast

import gymnasium as gym
import numpy as np

from rlfw.env.agents import AgentRows
from rlfw.env.contract import EnvOption
from rlfw.env.masks import SOURCES, follows, resolve
from rlfw.env.packed import KEY
from rlfw.env.rows import Reading
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError, require
from rlfw.registry import register
from rlfw.values import suggest


def pettingzoo() -> Any:
    """The pettingzoo package (the ``pettingzoo`` extra, imported by this option only)."""
    try:
        import pettingzoo
    except ImportError as err:
        raise ConfigError(f"env=pettingzoo needs pettingzoo: pip install 'rlfw[pettingzoo]' ({err})") from err
    return pettingzoo


def factory(id: str) -> Callable[..., Any]:
    """The function that makes ``id``'s env; one line if the id is unknown, the module does not import or
    has no such name."""
    if ":" not in id:
        registry = pettingzoo()
        if id in registry.parallel_registry:
            return partial(registry.make, "parallel", id)
        if id in registry.aec_registry:
            return partial(registry.make, "aec", id)
        ids = [*registry.parallel_registry, *registry.aec_registry]
        raise ConfigError(
            f"env.id={id!r}: not in PettingZoo's registry{suggest(id, ids)};"
            " an env it does not hold is env.id=<module>:<function> (mpe2.simple_spread_v3:parallel_env)"
        )
    module_name, _, name = id.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ConfigError(f"env.id={id!r}: cannot import {module_name!r} (is its package installed?): {err}") from err
    make = getattr(module, name, None)
    if not callable(make):
        raise ConfigError(
            f"env.id={id!r}: {module_name} has no {name} that makes an env;"
            " env=pettingzoo takes env.id=<module>:<function> (mpe2.simple_spread_v3:parallel_env)"
        )
    return make


def shared_space(env: Any, spaces: Callable[[str], gym.Space], what: str) -> gym.Space:
    """The one space every agent has; one line naming the agents that differ."""
    first, *rest = env.possible_agents
    differ = [agent for agent in rest if spaces(agent) != spaces(first)]
    if differ:
        raise ConfigError(
            f"env=pettingzoo shares one policy among the agents, and their {what} spaces differ: {first} has"
            f" {spaces(first)}, {', '.join(f'{a} {spaces(a)}' for a in differ)} (SuperSuit's pad_observations_v0 and pad_action_space_v0 make them one; env.agent_id=true then"
            " tells the shared policy which agent it acts for)"
        )
    return spaces(first)


@register("env", "pettingzoo")
class PettingZooEnv(EnvOption):
    """``num_envs`` copies of a PettingZoo Parallel env, ``num_envs x agents`` rows (``rlfw.env.agents``)."""

    def __init__(
        self,
        id: str,
        kwargs: dict | None = None,
        solved_return: float | None = None,
        agent_id: bool = False,
        state: bool = False,
        mask: str = "auto",
        agents_leave: bool = False,
    ):
        require(mask in SOURCES, "env.mask", mask, f"one of {', '.join(SOURCES)}")
        self.id, self.kwargs, self.agent_id, self.leave = id, dict(kwargs or {}), agent_id, agents_leave
        self._factory = factory(id)
        api = pettingzoo()
        made = self._factory(**self.kwargs)
        if not isinstance(made, api.AECEnv | api.ParallelEnv):
            raise ConfigError(f"env.id={id!r}: made a {type(made).__name__}, not a PettingZoo env (AEC or Parallel)")
        # a turn-based (AEC) game is played by self-play: one seat acts a step, the others' rows wait
        self.turns = isinstance(made, api.AECEnv)
        made.close()
        probe = self._make()
        obs_space = shared_space(probe, probe.observation_space, "observation")
        action_space = shared_space(probe, probe.action_space, "action")
        obs, infos = probe.reset(seed=0)
        first = probe.possible_agents[0]
        self.mask = resolve(mask, follows(obs[first], infos.get(first, {})), action_space)
        obs_space = self._agent_space(obs_space)
        require(
            not agent_id or len(obs_space.shape) == 1,
            "env.agent_id",
            agent_id,
            f"the agent's one-hot id is appended to a flat observation, this env's are {obs_space.shape}",
        )
        self.obs_space, self.action_space = obs_space, action_space
        self.state_space = self._state_space(probe) if state else None
        rows = self.make(1)
        self.spec = self._spec(rows, solved_return)
        rows.close()
        probe.close()

    def _agent_space(self, space: gym.Space) -> gym.spaces.Box:
        """An agent's observation space as its rows read it: PettingZoo's classic form (``{"observation",
        "action_mask"}``) read for its observation alone; a Discrete, MultiDiscrete, MultiBinary or Tuple
        one-hot and flat, as env=gym reads them (``rlfw.env.flat``); one line for anything else."""
        self.classic = isinstance(space, gym.spaces.Dict) and {"observation", KEY} == set(space.spaces)
        if self.classic:
            space = cast(gym.spaces.Dict, space).spaces["observation"]
        require(
            not isinstance(space, gym.spaces.Dict),
            "env.id",
            self.id,
            f"env=pettingzoo reads one array an agent (besides its action mask), this env's agents have {space}",
        )
        self.flatten = None if isinstance(space, gym.spaces.Box) else space
        if self.flatten is None:
            return cast(gym.spaces.Box, space)
        flat = cast(gym.spaces.Box, gym.spaces.flatten_space(space))
        return gym.spaces.Box(flat.low, flat.high, dtype=np.float32)

    def _spec(self, rows: AgentRows, solved_return: float | None) -> EnvSpec:
        """The spec of ``rows``: its layout, its agents, and why some rows may not act (a game's turns, an
        agent that left)."""
        idle = ""
        if self.turns:
            idle = f"{self.id} is a turn-based game: its seats take turns, each acting only on its own"
        elif self.leave:
            idle = f"env.agents_leave=true: the agents that leave {self.id} early act no more until its episode ends"
        space = rows.single_observation_space
        return EnvSpec(
            self.id,
            tuple(space.shape or ()),
            self.action_space,
            solved_return,
            np.dtype(space.dtype),
            parts=rows.parts,
            agents=tuple(rows.agents),
            idle=idle,
            evaluation="games" if self.turns else "returns",
        )

    def _state_space(self, probe: Any) -> gym.spaces.Box:
        """The global state's space (env.state=true); one line for an env without ``state()``."""
        try:
            state = np.asarray(probe.state(), dtype=np.float32)
        except (AttributeError, NotImplementedError) as err:
            raise ConfigError(
                f"env.state=true: {self.id} has no global state() ({type(err).__name__}: {err}); a critic of"
                " this env reads the agents' observations (algo=ppo: IPPO)"
            ) from err
        return gym.spaces.Box(-np.inf, np.inf, state.shape, np.float32)  # the row's packed part is float32

    def _make(self) -> Any:
        """A Parallel env; a turn-based game's each step is its acting seat's move (``turns``)."""
        env = self._factory(**self.kwargs)
        if self.turns:
            from pettingzoo.utils.conversions import turn_based_aec_to_parallel

            return turn_based_aec_to_parallel(env)
        return env

    def make(self, num_envs: int, evaluation: bool = False) -> AgentRows:
        """``num_envs`` copies of the env, not yet reset: ``num_envs x agents`` rows."""
        require(num_envs >= 1, "num_envs", num_envs, "must be >= 1")
        observe = Reading(self.obs_space, self.classic, self.flatten, self.mask)
        return AgentRows(
            self._make, num_envs, observe, self.action_space, self.agent_id, self.state_space, self.turns, self.leave
        )
