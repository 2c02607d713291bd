"""Atari 2600 games through ale-py, with the standard DQN-era preprocessing (``env=pong``, ``env=atari``).

Two backends make the same observations (``[stack, 84, 84]`` uint8, newest frame last):

- ``ale``: ale-py's ``AtariVectorEnv``, C++ envs stepped on a thread pool, preprocessing built in;
- ``gymnasium``: ``gymnasium.make_vec`` of ``ALE/<Game>-v5`` with gymnasium's ``AtariPreprocessing``,
  ``ClipReward`` and ``FrameStackObservation`` wrappers, one Python env after another.

Training envs lose an episode at each life lost and clip rewards to [-1, 1]; evaluation envs play full
games and report raw scores. Neither is written here: both backends implement the protocol.
"""

from __future__ import annotations

import inspect
from typing import Any

import gymnasium as gym
import numpy as np

from rlfw.env.contract import EnvOption
from rlfw.env.fire_reset import FireReset
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError, require
from rlfw.machine import cores
from rlfw.registry import register
from rlfw.values import suggest

BACKENDS = ("ale", "gymnasium")
# AtariVectorEnv's arguments that env.* keys set (make), so env.kwargs may not
SET_HERE = {
    "num_threads",
    "autoreset_mode",
    "max_num_frames_per_episode",
    "repeat_action_probability",
    "img_height",
    "img_width",
    "stack_num",
    "frameskip",
    "noop_max",
    "use_fire_reset",
    "episodic_life",
    "reward_clipping",
}


def _games() -> list[str]:
    import ale_py
    from ale_py import roms

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)  # no banner on every env made
    return sorted(roms.get_all_rom_ids())


def _camel(game: str) -> str:
    return "".join(part.capitalize() for part in game.split("_"))


@register("env", "atari")
class AtariEnv(EnvOption):
    renders = True

    def __init__(
        self,
        game: str,
        backend: str = "ale",
        repeat_action_probability: float = 0.0,
        noop_max: int = 30,
        frame_skip: int = 4,
        stack: int = 4,
        size: int = 84,
        episodic_life: bool = True,
        clip_rewards: bool = True,
        fire_reset: bool = True,
        max_episode_frames: int = 108_000,
        threads: int | None = None,
        kwargs: dict | None = None,
        solved_return: float | None = None,
    ):
        games = _games()
        require(
            game in games,
            "env.game",
            game,
            f"not an ALE game{suggest(game, games)}; ale-py ships {len(games)}, e.g. pong, breakout, ms_pacman",
        )
        require(backend in BACKENDS, "env.backend", backend, f"one of {', '.join(BACKENDS)}")
        require(
            0 <= repeat_action_probability < 1,
            "env.repeat_action_probability",
            repeat_action_probability,
            "a probability in [0, 1)",
        )
        for key, value in (("frame_skip", frame_skip), ("stack", stack), ("max_episode_frames", max_episode_frames)):
            require(value >= 1, f"env.{key}", value, "must be >= 1")
        require(noop_max >= 0, "env.noop_max", noop_max, "must be >= 0")
        require(size >= 36, "env.size", size, "frames are size x size pixels, >= 36 (the Nature CNN's smallest input)")
        self.kwargs = dict(kwargs or {})
        require(
            "frameskip" not in self.kwargs and "frame_skip" not in self.kwargs,
            "env.kwargs",
            self.kwargs,
            f"the preprocessing already skips env.frame_skip={frame_skip} frames; a frame skip in the ALE env as well"
            " would repeat each action frame_skip x frameskip frames and max-pool the wrong frames: set env.frame_skip only",
        )
        # ale-py's threads step the envs inside envs.step, while torch's threads wait for the actions;
        # torch computes while the env threads wait. They take turns, so each may use every core.
        available = cores()
        self.threads = threads if threads is not None else available
        require(
            1 <= self.threads <= available,
            "env.threads",
            threads,
            f"ale-py env threads, 1 to this machine's {available} cores",
        )
        self.game, self.backend, self.stack = game, backend, stack
        self.options: dict[str, Any] = dict(
            repeat_action_probability=repeat_action_probability,
            noop_max=noop_max,
            frame_skip=frame_skip,
            size=size,
            episodic_life=episodic_life,
            clip_rewards=clip_rewards,
            fire_reset=fire_reset,
            max_episode_frames=max_episode_frames,
        )
        if backend == "ale":
            from ale_py.vector_env import AtariVectorEnv

            takes = set(inspect.signature(AtariVectorEnv.__init__).parameters) - {"self", "game", "num_envs"} - SET_HERE
            unknown = sorted(set(self.kwargs) - takes)
            require(
                not unknown,
                "env.kwargs",
                self.kwargs,
                f"AtariVectorEnv does not take {', '.join(unknown)} here; it takes {', '.join(sorted(takes))} (the rest are env.* keys)",
            )
        probe = self._gym_env(evaluation=True)  # the action space; fails here on a bad ALE kwarg
        self.spec = EnvSpec(
            f"ALE/{_camel(game)}-v5",
            (stack, size, size),
            probe.action_space,
            solved_return,
            np.dtype(np.uint8),
            frame_stack=stack,
            stack_padding="zeros" if backend == "ale" else "first",
        )
        probe.close()

    def make(self, num_envs: int, evaluation: bool = False) -> gym.vector.VectorEnv:
        """``num_envs`` envs, not yet reset; ``evaluation``: full games, raw scores."""
        require(num_envs >= 1, "num_envs", num_envs, "must be >= 1")
        if self.backend == "gymnasium":
            return gym.vector.SyncVectorEnv(
                [lambda: self._gym_env(evaluation)] * num_envs, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
            )
        from ale_py.vector_env import AtariVectorEnv

        o = self.options
        return AtariVectorEnv(
            self.game,
            num_envs,
            num_threads=min(self.threads, num_envs),
            autoreset_mode="SameStep",
            max_num_frames_per_episode=o["max_episode_frames"],
            repeat_action_probability=o["repeat_action_probability"],
            img_height=o["size"],
            img_width=o["size"],
            stack_num=self.stack,
            frameskip=o["frame_skip"],
            noop_max=o["noop_max"],
            use_fire_reset=o["fire_reset"],
            episodic_life=o["episodic_life"] and not evaluation,
            reward_clipping=o["clip_rewards"] and not evaluation,
            **self.kwargs,
        )

    def render_env(self, render_mode: str = "rgb_array") -> tuple[gym.Env, float]:
        """One evaluation env that renders (gymnasium's preprocessing), and its frame rate."""
        return self._gym_env(evaluation=True, render_mode=render_mode), 60 / self.options["frame_skip"]

    def _gym_env(self, evaluation: bool, render_mode: str | None = None) -> gym.Env:
        import ale_py

        gym.register_envs(ale_py)
        o = self.options
        try:
            env = gym.make(
                f"ALE/{_camel(self.game)}-v5",
                frameskip=1,
                repeat_action_probability=o["repeat_action_probability"],
                max_num_frames_per_episode=o["max_episode_frames"],
                render_mode=render_mode,
                **self.kwargs,
            )
        except Exception as err:  # a bad kwarg for the ALE env
            raise ConfigError(f"env.kwargs={self.kwargs}: the ALE env refused them: {err}") from err
        env = gym.wrappers.AtariPreprocessing(
            env,
            noop_max=o["noop_max"],
            frame_skip=o["frame_skip"],
            screen_size=o["size"],
            terminal_on_life_loss=o["episodic_life"] and not evaluation,
        )
        ale: Any = env.unwrapped
        if o["fire_reset"] and "FIRE" in ale.get_action_meanings():
            env = FireReset(env)
        if o["clip_rewards"] and not evaluation:
            env = gym.wrappers.ClipReward(env, -1, 1)
        return gym.wrappers.FrameStackObservation(env, self.stack)
