"""Invalid-action masks, from whichever of three conventions an env follows (``env.mask``), made one form:
the open actions ride with the observation, as its part ``action_mask`` (``rlfw.env.packed``), so the
replays keep them with ``obs`` and ``next_obs`` and the head applies them to its action scores.

    obs     a Dict observation's ``action_mask`` key (PettingZoo's classic games)
    info    ``info["action_mask"]`` after every reset and step (gymnasium's Taxi)
    method  an ``action_masks()`` method (sb3-contrib's MaskablePPO convention)
    auto    the first of these the env follows, found once on a probe env; none if it follows none
    none    no mask: every action is open (an ablation of the mask)

``WithMask`` wraps a gymnasium env; PettingZoo's agents (``rlfw.env.agents``) read theirs with ``read``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from rlfw.env.packed import KEY
from rlfw.errors import ConfigError, EnvError, require

SOURCES = ("auto", "obs", "info", "method", "none")


def mask_size(space: gym.Space) -> int | None:
    """How many entries a mask of ``space`` has; None for a space masks do not apply to."""
    if isinstance(space, gym.spaces.Discrete):
        return int(space.n)
    if isinstance(space, gym.spaces.MultiDiscrete):
        return int(space.nvec.sum())
    return None


def require_maskable(space: gym.Space, key: str, value: Any) -> int:
    """The mask size of ``space``; one line when masks do not apply to it."""
    size = mask_size(space)
    if size is None:
        raise ConfigError(
            f"{key}={value}: masks apply to Discrete and MultiDiscrete actions, this env has {space}"
            " (env.mask=none acts without one)"
        )
    return size


def _method(env: Any) -> Any:
    try:
        return env.get_wrapper_attr("action_masks")
    except AttributeError:
        return None


def follows(obs: Any, info: dict, method: Callable[[], Any] | None = None) -> list[str]:
    """The conventions an env follows, judged from one reset's ``obs`` and ``info`` and its ``action_masks``."""
    found = []
    if isinstance(obs, dict) and KEY in obs:
        found.append("obs")
    if KEY in info:
        found.append("info")
    if callable(method):
        found.append("method")
    return found


def resolve(mask: str, found: list[str], space: gym.Space) -> str:
    """The convention ``env.mask`` resolves to where an env follows ``found``, "none" for no mask; one line
    if the env does not follow the one asked for, or masks do not apply to its action ``space``."""
    require(mask in SOURCES, "env.mask", mask, f"one of {', '.join(SOURCES)}")
    if mask == "none" or (mask == "auto" and not found):
        return "none"
    source = found[0] if mask == "auto" else mask
    if source not in found:
        where = {
            "obs": f"its observation has no {KEY!r} key",
            "info": f"its info has no {KEY!r} key",
            "method": "it has no action_masks() method",
        }[source]
        raise ConfigError(
            f"env.mask={mask}: {where}; this env follows {', '.join(found) or 'none of them'}"
            f" (env.mask=auto finds it, env.mask=none acts without a mask)"
        )
    require_maskable(space, "env.mask", mask)
    return source


def read(source: str, obs: Any, info: dict, method: Callable[[], Any] | None = None) -> np.ndarray:
    """The open actions by ``source`` from ``obs``, ``info`` or ``method``, as bools."""
    given = obs[KEY] if source == "obs" else info[KEY] if source == "info" else method()  # type: ignore[misc]
    return np.asarray(given, dtype=bool).reshape(-1)


OBSERVATION = "observation"  # the key of an observation that is not a Dict, beside its open actions (PettingZoo's)


def joined(space: gym.Space, size: int) -> gym.spaces.Dict:
    """An observation space with its open actions as the part ``action_mask``: a Dict's own keys (its mask
    key made bools), or ``observation`` for any other space."""
    rest = without(space.spaces) if isinstance(space, gym.spaces.Dict) else {OBSERVATION: space}
    return gym.spaces.Dict({**rest, KEY: gym.spaces.MultiBinary(size)})


def without(keys: dict) -> dict:
    """A Dict observation's (or space's) keys but its mask."""
    return {k: v for k, v in keys.items() if k != KEY}


def open_somewhere(mask: np.ndarray, space: gym.Space) -> bool:
    """Whether ``mask`` leaves an action open (in every dimension of a MultiDiscrete)."""
    if not isinstance(space, gym.spaces.MultiDiscrete):
        return bool(mask.any())  # at every step: np.split of one part costs more than the check
    return all(part.any() for part in np.split(mask, np.cumsum(space.nvec)[:-1].tolist()))


class WithMask(gym.Wrapper):
    """The env's mask (``source``: obs, info or method) as the observation's ``action_mask`` part after every
    reset and step. A mask that leaves no action open ends the run in one line: sampling or an argmax over
    it would pick an action the env forbids."""

    def __init__(self, env: gym.Env, source: str):
        super().__init__(env)
        self.source, self.size = source, require_maskable(env.action_space, "env.mask", source)
        self.observation_space = joined(env.observation_space, self.size)
        self.steps = 0

    def _joined(self, obs: Any, info: dict) -> dict:
        mask = read(self.source, obs, info, _method(self.env) if self.source == "method" else None)
        if not open_somewhere(mask, self.env.action_space):
            raise EnvError(
                f"{self.env.spec.id if self.env.spec else type(self.env.unwrapped).__name__}'s action mask leaves"
                f" no action open at step {self.steps} of an episode; every observation an agent acts on needs one"
                " (an env whose game is over ends the episode)"
            )
        rest = without(obs) if isinstance(obs, dict) else {OBSERVATION: obs}
        return {**rest, KEY: mask}

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        self.steps = 0
        return self._joined(obs, info), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.steps += 1
        return self._joined(obs, info), reward, terminated, truncated, info


def without_mask(env: gym.Env) -> gym.Env:
    """``env.mask=none``: a Dict observation without its mask key (no network reads the mask the ablation
    turned off); any other env as it is."""
    space = env.observation_space
    if not isinstance(space, gym.spaces.Dict) or KEY not in space.spaces:
        return env
    return gym.wrappers.FilterObservation(env, [k for k in space.spaces if k != KEY])


def mask_source(env: gym.Env, mask: str) -> str:
    """The convention ``env.mask`` resolves to on ``env`` (reset here with seed 0), "none" for no mask;
    one line if the env does not follow it, or its mask does not fit the action space."""
    require(mask in SOURCES, "env.mask", mask, f"one of {', '.join(SOURCES)}")
    if mask == "none":
        return "none"
    obs, info = env.reset(seed=0)
    method = _method(env)
    source = resolve(mask, follows(obs, info, method), env.action_space)
    if source == "none":
        return source
    given = read(source, obs, info, method if source == "method" else None)
    size = mask_size(env.action_space)
    require(
        len(given) == size,
        "env.mask",
        mask,
        f"the env's mask has {len(given)} entries, its action space {env.action_space} needs {size}",
    )
    return source
