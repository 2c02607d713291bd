"""Any gymnasium env as a synchronous vector env (``env=gym env.id=...``)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import cast

import gymnasium as gym
import numpy as np

from rlfw.env.contract import EnvOption
from rlfw.env.flat import flat
from rlfw.env.masks import WithMask, mask_source, without_mask
from rlfw.env.packed import Packed, packed, readable
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError, require
from rlfw.registry import register
from rlfw.values import suggest


def registered_id(id: str, imports: list[str]) -> str:
    """Imports the modules that register third-party envs (each of ``imports``, and the ``module`` of
    gymnasium's ``module:EnvId`` form), then returns the plain id once it is registered. ``module:Name``
    where ``Name`` is no registered id but a class or function of the module (an env no package
    registers, such as sb3-contrib's ``InvalidActionEnvDiscrete``) registers it under ``Name``."""
    module, _, env_id = id.rpartition(":")
    for name in [*imports, *([module] if module else [])]:
        try:
            importlib.import_module(name)
        except ImportError as err:
            raise ConfigError(f"env.imports: cannot import {name!r} (is its package installed?): {err}") from err
    if env_id not in gym.registry and module and callable(getattr(sys.modules[module], env_id, None)):
        gym.register(env_id, entry_point=id)
    if env_id not in gym.registry:
        raise ConfigError(
            f"env.id={id!r}: not a registered gymnasium id{suggest(env_id, list(gym.registry))}; an env that a package"
            " registers when imported needs env.imports=[<module>] or env.id=<module>:<id>, one it does not"
            " register env.id=<module>:<class> (gymnasium.pprint_registry() lists ids)"
        )
    return env_id


@register("env", "gym")
class GymEnv(EnvOption):
    """Builds ``num_envs`` copies of ``id``; episodes reset in the same step they end.

    With same-step autoreset, the observation after a terminal or truncated step is the next
    episode's first, and the true final observation is in ``info["final_obs"]``: every step then is a
    valid transition (the collector swaps the final observation in as ``next_obs``).
    """

    renders = True

    def __init__(
        self,
        id: str,
        kwargs: dict | None = None,
        solved_return: float | None = None,
        imports: Sequence[str] = (),
        mask: str = "auto",
    ):
        self.id = registered_id(id, list(imports))
        self.kwargs = dict(kwargs or {})
        try:
            probe = gym.make(self.id, **self.kwargs)
        except Exception as err:  # a bad kwarg or a missing optional dependency of the env
            raise ConfigError(f"env.id={id!r}: gymnasium.make failed: {err}") from err
        self.mask = mask_source(probe, mask)
        probe = self._wrapped(probe)
        parts = probe.parts if isinstance(probe, Packed) else ()
        if isinstance(probe, Packed) and probe.left_out:
            self.notes = (f"env.id={id}: observation keys no encoder reads are left out: {', '.join(probe.left_out)}",)
        obs_space = probe.observation_space
        threshold = probe.spec.reward_threshold if probe.spec is not None else None
        solved = solved_return if solved_return is not None else threshold
        self.spec = EnvSpec(
            id,
            tuple(obs_space.shape or ()),
            probe.action_space,
            solved,
            np.dtype(obs_space.dtype),
            parts=parts,
        )
        probe.close()

    def _wrapped(self, env: gym.Env) -> gym.Env:
        """``env`` as rlfw acts on it: its open actions joined to its observation (``rlfw.env.masks``), a Dict
        packed into one array for the ``multi`` encoder (``rlfw.env.packed``), an observation no part reads
        (a Tuple of Discretes) one-hot and flat (``rlfw.env.flat``)."""
        if self.mask == "none":
            return packed(flat(without_mask(env)))
        return packed(WithMask(env if readable(env.observation_space) else flat(env), self.mask))

    def render_env(self, render_mode: str = "rgb_array") -> tuple[gym.Env, float]:
        """One env that renders (``rgb_array`` frames, or a ``human`` window), and its frame rate."""
        if render_mode == "rgb_array":  # frames drawn off-screen: SDL's video driver, looking for a display,
            os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # prints an XDG_RUNTIME_DIR error line headless
        env = self._wrapped(gym.make(self.id, render_mode=render_mode, **self.kwargs))
        return env, env.metadata.get("render_fps") or 30

    def make(self, num_envs: int, evaluation: bool = False) -> gym.vector.VectorEnv:
        """A new vector env, not yet reset: the caller resets it with its seed. Evaluation envs are the
        same as training envs here (``evaluation`` matters to envs that train on altered rewards)."""
        require(num_envs >= 1, "num_envs", num_envs, "must be >= 1")
        # copy=False: the collector copies what it keeps; the env checker ran on the probe in __init__
        return gym.make_vec(
            self.id,
            num_envs=num_envs,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP, "copy": False},
            wrappers=[cast(Callable[[gym.Env], gym.Wrapper], self._wrapped), EpisodeEndInfo],  # may return the env
            disable_env_checker=True,
            **self.kwargs,
        )


class EpisodeEndInfo(gym.Wrapper):
    """An env's ``info`` only on the step that ends an episode: rlfw reads nothing else of it, and the
    vector env merges every step's info key by key (MuJoCo's four reward terms, at every step)."""

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, reward, terminated, truncated, info if terminated or truncated else {}
