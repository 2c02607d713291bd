"""What an env option is and declares: ``rlfw.config`` (the fit and video checks), ``rlfw.play`` and the
plugin listing read it from here, as they read the other kinds' from their contracts."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from rlfw.env.spec import EnvSpec


class EnvOption:
    """``spec`` (an ``EnvSpec``: the one source of the env's observations, open actions, agents and who
    acts) and ``make(num_envs, evaluation=False)``, a new vector env not yet reset; where ``renders``,
    ``render_env(render_mode)``: one env that renders, and its frame rate. An env option subclasses this
    class."""

    spec: EnvSpec
    renders: bool = False  # gives render_env (videos, python -m rlfw.play render=human)
    notes: tuple[str, ...] = ()  # what a run logs about the env when it starts (observation keys left out)

    def make(self, num_envs: int, evaluation: bool = False) -> Any:  # pragma: no cover
        raise NotImplementedError

    def render_env(self, render_mode: str = "rgb_array") -> tuple[gym.Env, float]:  # pragma: no cover
        raise NotImplementedError
