"""Any registered gymnasium id as a synchronous vector env (``env=gym env.id=...``)."""

from __future__ import annotations

import gymnasium as gym

from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError, require
from rlfw.registry import register


@register("env", "gym")
class GymEnv:
    """Builds ``num_envs`` copies of ``id``; episodes reset in the same step they end.

    With same-step autoreset, the observation after a terminal or truncated step is the next
    episode's first, and the true final observation is in ``info["final_obs"]``: every step then is a
    valid transition (the collector swaps the final observation in as ``next_obs``).
    """

    def __init__(self, id: str, kwargs: dict | None = None, solved_return: float | None = None):
        require(id in gym.registry, "env.id", id, "not a registered gymnasium id (see gymnasium.pprint_registry())")
        self.id = id
        self.kwargs = dict(kwargs or {})
        try:
            probe = gym.make(id, **self.kwargs)
        except Exception as err:  # a bad kwarg or a missing optional dependency of the env
            raise ConfigError(f"env.id={id!r}: gymnasium.make failed: {err}") from err
        obs_space = probe.observation_space
        require(
            isinstance(obs_space, gym.spaces.Box),
            "env.id",
            id,
            f"rlfw's encoders need a Box observation space, this env has {obs_space}",
        )
        solved = solved_return if solved_return is not None else probe.spec.reward_threshold
        self.spec = EnvSpec(id, tuple(obs_space.shape), probe.action_space, solved)
        probe.close()

    def make(self, num_envs: int) -> gym.vector.VectorEnv:
        """A new vector env, not yet reset: the caller resets it with its seed."""
        require(num_envs >= 1, "num_envs", num_envs, "must be >= 1")
        return gym.make_vec(
            self.id,
            num_envs=num_envs,
            vectorization_mode="sync",
            vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
            **self.kwargs,
        )
