"""MinAtar (Young & Tian 2019, arXiv:1903.03176): Asterix, Breakout, Freeway, Seaquest and Space
Invaders on a 10x10 grid, one channel per kind of object (``env=minatar env.game=breakout``).

The pixel path's CartPole: a small conv net learns these in minutes on a CPU where Atari takes hours.
Observations are uint8 ``(channels, 10, 10)`` in {0, 255}, so they take the pixel path as they are
(the conv encoder scales them to {0, 1}); no frames are stacked, since each game's channels carry the
motion (trails). Sticky actions (``sticky``, 0.1) and the difficulty ramp follow the paper; all six
actions by default, as the paper's agents had (``minimal_actions`` gives each game its own few).
The game keeps its state in the ``minatar`` package's objects, so a resumed run ends its episodes at
the checkpoint, as an Atari run does (docs/guide/resume.md).
"""

from __future__ import annotations

import importlib.util
from functools import partial

import gymnasium as gym
import numpy as np

from rlfw.env.contract import EnvOption
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.registry import register

GAMES = ("asterix", "breakout", "freeway", "seaquest", "space_invaders")


class MinAtarEnv(gym.Env):
    def __init__(self, game: str, sticky: float, ramping: bool, minimal_actions: bool):
        from minatar import Environment

        self.game = Environment(game, sticky_action_prob=sticky, difficulty_ramping=ramping)
        self.actions = self.game.minimal_action_set() if minimal_actions else list(range(self.game.num_actions()))
        self.action_space = gym.spaces.Discrete(len(self.actions))
        rows, columns, channels = self.game.state_shape()
        self.observation_space = gym.spaces.Box(0, 255, (channels, rows, columns), np.uint8)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.game.seed(int(self.np_random.integers(2**31)))  # its own RandomState, from gymnasium's generator
        self.game.reset()
        return self._obs(), {}

    def step(self, action):
        reward, done = self.game.act(self.actions[int(action)])
        return self._obs(), float(reward), bool(done), False, {}

    def render(self) -> np.ndarray:
        """The grid as RGB, each cell 16x16 pixels, each channel its own gray (the paper's colours need seaborn)."""
        state = self.game.state()
        shades = np.linspace(255, 80, state.shape[2]).astype(np.uint8)
        frame = np.max(state * shades, axis=2).astype(np.uint8)
        return np.repeat(np.repeat(frame, 16, 0), 16, 1)[..., None].repeat(3, 2)

    def _obs(self) -> np.ndarray:
        return np.ascontiguousarray(self.game.state().transpose(2, 0, 1), dtype=np.uint8) * np.uint8(255)


@register("env", "minatar")
class MinAtar(EnvOption):
    renders = True

    def __init__(
        self,
        game: str = "breakout",
        sticky: float = 0.1,
        ramping: bool = True,
        minimal_actions: bool = False,
        solved_return: float | None = None,
    ):
        require(game in GAMES, "env.game", game, f"one of {', '.join(GAMES)}")
        require(0.0 <= sticky < 1.0, "env.sticky", sticky, "a probability in [0, 1)")
        installed = importlib.util.find_spec("minatar") is not None
        require(installed, "env", "minatar", "MinAtar is not installed: pip install 'rlfw[minatar]'")
        self.env = partial(MinAtarEnv, game, sticky, ramping, minimal_actions)
        probe = self.env()
        shape = tuple(probe.observation_space.shape or ())
        self.spec = EnvSpec(f"MinAtar-{game}", shape, probe.action_space, solved_return, np.dtype(np.uint8))

    def render_env(self, render_mode: str = "rgb_array") -> tuple[gym.Env, float]:
        require(render_mode == "rgb_array", "render", render_mode, "MinAtar renders rgb_array frames only (a video)")
        return self.env(), 10

    def make(self, num_envs: int, evaluation: bool = False) -> gym.vector.VectorEnv:
        require(num_envs >= 1, "num_envs", num_envs, "must be >= 1")
        return gym.vector.SyncVectorEnv(
            [self.env] * num_envs,
            autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
        )
