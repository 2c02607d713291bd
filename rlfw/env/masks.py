"""Invalid-action masks, from whichever of three conventions an env follows (``env.mask``):

    obs     a Dict observation's ``action_mask`` key (PettingZoo's classic games); the key leaves the
            observation, so the network never reads it
    info    ``info["action_mask"]`` after every reset and step (gymnasium's Taxi)
    method  an ``action_masks()`` method (sb3-contrib's MaskablePPO convention)
    auto    the first of these the env follows, found once on a probe env; none if it follows none
    none    no mask: every action is open (an ablation of the mask)

``ActionMask`` wraps each sub-env so that its info holds ``action_mask`` (bool, one entry per action; a
MultiDiscrete's choices concatenated) after every reset and step, whatever the convention: the vector env
stacks them, and for an episode that ended the final observation's mask is in ``final_info``.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from rlfw.errors import ConfigError, EnvError, require

KEY = "action_mask"
SOURCES = ("auto", "obs", "info", "method", "none")


def mask_size(space: gym.Space) -> int | None:
    """How many entries a mask of ``space`` has; None for a space masks do not apply to."""
    if isinstance(space, gym.spaces.Discrete):
        return int(space.n)
    if isinstance(space, gym.spaces.MultiDiscrete):
        return int(space.nvec.sum())
    return None


def _method(env: gym.Env) -> Any:
    try:
        return env.get_wrapper_attr("action_masks")
    except AttributeError:
        return None


def follows(env: gym.Env, obs: Any, info: dict) -> list[str]:
    """The conventions ``env`` follows, judged from one reset's ``obs`` and ``info``."""
    found = []
    if isinstance(obs, dict) and KEY in obs:
        found.append("obs")
    if KEY in info:
        found.append("info")
    if callable(_method(env)):
        found.append("method")
    return found


def mask_source(env: gym.Env, mask: str) -> str:
    """The convention ``env.mask`` resolves to on ``env`` (reset here with seed 0), "none" for no mask;
    one line if the env does not follow the one asked for, or its mask does not fit the action space."""
    require(mask in SOURCES, "env.mask", mask, f"one of {', '.join(SOURCES)}")
    if mask == "none":
        return "none"
    obs, info = env.reset(seed=0)
    found = follows(env, obs, info)
    if mask == "auto":
        if not found:
            return "none"
        mask = found[0]
    elif mask not in found:
        where = {
            "obs": f"its observation has no {KEY!r} key",
            "info": f"its info has no {KEY!r} key",
            "method": "it has no action_masks() method",
        }[mask]
        raise ConfigError(
            f"env.mask={mask}: {where}; this env follows {', '.join(found) or 'none of them'}"
            f" (env.mask=auto finds it, env.mask=none acts without a mask)"
        )
    size = mask_size(env.action_space)
    if size is None:
        raise ConfigError(
            f"env.mask={mask}: masks apply to Discrete and MultiDiscrete actions, this env has {env.action_space}"
            " (env.mask=none acts without one)"
        )
    given = np.asarray(read(env, mask, obs, info)).reshape(-1)
    require(
        len(given) == size,
        "env.mask",
        mask,
        f"the env's mask has {len(given)} entries, its action space {env.action_space} needs {size}",
    )
    return mask


def read(env: gym.Env, source: str, obs: Any, info: dict) -> np.ndarray:
    """The mask ``env`` gives by ``source`` with ``obs`` and ``info``, as bools."""
    if source == "obs":
        given = obs[KEY]
    elif source == "info":
        given = info[KEY]
    else:
        given = _method(env)()
    return np.asarray(given, dtype=bool).reshape(-1)


def without_mask(space: gym.spaces.Dict) -> gym.Space:
    """A Dict observation space less its mask key; the one space left if only one is."""
    rest = {k: v for k, v in space.spaces.items() if k != KEY}
    return next(iter(rest.values())) if len(rest) == 1 else gym.spaces.Dict(rest)


class ActionMask(gym.Wrapper):
    """Puts the env's mask in ``info["action_mask"]`` after every reset and step (``source``: obs, info
    or method), and takes an ``obs`` mask out of the observation."""

    def __init__(self, env: gym.Env, source: str):
        super().__init__(env)
        self.source = source
        if source == "obs":
            assert isinstance(env.observation_space, gym.spaces.Dict)
            self.observation_space = without_mask(env.observation_space)

    def _moved(self, obs: Any, info: dict) -> tuple[Any, dict]:
        mask = read(self.env, self.source, obs, info)
        if self.source == "obs":
            rest = {k: v for k, v in obs.items() if k != KEY}
            obs = next(iter(rest.values())) if len(rest) == 1 else rest
        return obs, {**info, KEY: mask}

    def reset(self, **kwargs):
        return self._moved(*self.env.reset(**kwargs))

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        obs, info = self._moved(obs, info)
        return obs, reward, terminated, truncated, info


class WithoutMask(gym.Wrapper):
    """``env.mask=none`` on an env whose info carries ``action_mask`` itself (Taxi): the key leaves the info,
    so nothing downstream (the collector, evaluation) applies the mask the ablation turned off."""

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs, {k: v for k, v in info.items() if k != KEY}

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, {k: v for k, v in info.items() if k != KEY}


def valid_actions(info: dict, env_step: int, space: gym.Space, waits: bool = False) -> np.ndarray:
    """The vector env's masks (``[num_envs, actions]`` bools) from its ``info``. A row that leaves no action
    open (in any dimension of a MultiDiscrete) ends the run in one line: sampling or an argmax over it
    would pick an action the env forbids. Where rows wait (``waits``: a turn-based game's seats, agents
    that left; ``rlfw.env.agents``) a row that closes every action is waiting, and its action goes nowhere."""
    mask = np.asarray(info[KEY], dtype=bool)
    parts: list[int] = np.cumsum(space.nvec)[:-1].tolist() if isinstance(space, gym.spaces.MultiDiscrete) else []
    acting = mask.any(-1) if waits else True  # where rows wait, one with no action open anywhere is waiting
    for part in np.split(mask, parts, axis=-1):
        closed = ~part.any(-1) & acting
        if closed.any():
            raise EnvError(
                f"at env step {env_step:,} sub-env {int(closed.argmax())}'s action mask leaves no action open;"
                " every observation an agent acts on needs one (an env whose game is over ends the episode)"
            )
    return mask


def next_masks(mask: np.ndarray, info: dict, done: np.ndarray) -> np.ndarray:
    """The masks of each sub-env's next observation: ``mask`` (the new episode's first, where one ended
    and the vector env reset it), with the final observation's mask where an episode ended."""
    final = mask.copy()
    final[done] = np.asarray(info["final_info"][KEY], dtype=bool)[done]
    return final
