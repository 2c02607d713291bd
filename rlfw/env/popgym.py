"""POPGym's partially observed tasks (Morad et al. 2023, "POPGym: Benchmarking Partially Observable
Reinforcement Learning", ICLR; https://github.com/proroklab/popgym): ``env=popgym env.task=<Task>``
for any of the package's ``popgym-<Task>-v0`` ids (``pip install 'rlfw[popgym]'``).

Each task's returns lie in [-1, 1] whatever its length, so one bar reads the same across tasks. A
task whose observation is a card's suit or a grid of them (Discrete, MultiDiscrete, Tuple) enters
the network one-hot and flat (``rlfw.env.flat``).
"""

from __future__ import annotations

import importlib.util

import gymnasium as gym

from rlfw.env.contract import EnvOption
from rlfw.env.flat import flat
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.registry import register
from rlfw.values import suggest

PREFIX, SUFFIX = "popgym-", "-v0"


def tasks() -> list[str]:
    """POPGym's task names, as its package registers them with gymnasium when imported."""
    import popgym  # noqa: F401  (registers the ids)

    return sorted(id[len(PREFIX) : -len(SUFFIX)] for id in gym.registry if id.startswith(PREFIX))


def make_task(task: str, **kwargs) -> gym.Env:
    return flat(gym.make(f"{PREFIX}{task}{SUFFIX}", **kwargs))  # only some tasks take a render_mode


@register("env", "popgym")
class PopGym(EnvOption):
    renders = True

    def __init__(self, task: str = "RepeatPreviousEasy", solved_return: float | None = None):
        installed = importlib.util.find_spec("popgym") is not None
        require(installed, "env", "popgym", "POPGym is not installed: pip install 'rlfw[popgym]'")
        names = tasks()
        require(task in names, "env.task", task, f"not a POPGym task{suggest(task, names)}; one of {', '.join(names)}")
        self.task = task
        probe = make_task(task)
        shape = tuple(probe.observation_space.shape or ())
        self.spec = EnvSpec(f"{PREFIX}{task}{SUFFIX}", shape, probe.action_space, solved_return)
        probe.close()

    def render_env(self, render_mode: str = "rgb_array") -> tuple[gym.Env, float]:
        env = make_task(self.task, render_mode=render_mode)
        return env, env.metadata.get("render_fps") or 30

    def make(self, num_envs: int, evaluation: bool = False) -> gym.vector.VectorEnv:
        require(num_envs >= 1, "num_envs", num_envs, "must be >= 1")
        return gym.vector.SyncVectorEnv(
            [lambda: make_task(self.task)] * num_envs,
            autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
        )
