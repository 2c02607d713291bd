"""The frame-once replay store against a naive store of whole stacked observations (``StepStore``),
fed the same steps by the real collector from a synthetic pixel env and from real Atari envs."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

from rlfw.env.atari import AtariEnv
from rlfw.env.spec import EnvSpec
from rlfw.replay.frames import FrameStore
from rlfw.replay.prioritized import PrioritizedReplay
from rlfw.replay.steps import StepStore
from rlfw.replay.uniform import UniformReplay
from tests.env.pixels import FRAME, noise_envs
from tests.helpers import Both, Stand, collector


class RandomActions:
    def __init__(self, actions: int):
        self.actions = actions

    def act(self, out, env_steps):
        return torch.randint(self.actions, (out.rows,)).numpy(), {}  # numpy, as the envs take them


def collect(envs, stores, steps: int, actions: int = 2) -> None:
    collector(envs, Stand(lambda obs: {"obs": obs}), RandomActions(actions), Both(*stores)).collect(steps)
    envs.close()


def pixel_spec(stack: int, padding: str, frame=FRAME) -> EnvSpec:
    return EnvSpec("Noise-v0", (stack, *frame), gym.spaces.Discrete(2), None, np.dtype(np.uint8), stack, padding)


def assert_same_samples(naive: StepStore, frames: FrameStore, n: int, gamma: float = 0.9) -> int:
    """Compares every step whose n-step window is complete; returns how many were valid."""
    rows = (naive.oldest_row() + torch.arange(naive.size - n + 1)) % naive.rows
    t = rows.repeat_interleave(naive.num_envs)
    e = torch.arange(naive.num_envs).repeat(len(rows))
    ok = frames.valid(t, e)
    t, e = t[ok], e[ok]
    want, got = naive.n_step(t, e, n, gamma), frames.n_step(t, e, n, gamma)
    assert want.keys() == got.keys()
    for key in want:
        assert torch.equal(want[key], got[key]), f"{key} differs (n={n})"
    return len(t)


@pytest.mark.parametrize("padding", ["zeros", "first"])
@pytest.mark.parametrize("n", [1, 3])
def test_every_sample_equals_the_naive_stores(padding, n):
    stack, num_envs, steps = 4, 3, 400
    rows = 4 * steps  # room to spare: no frame is overwritten
    naive, frames = StepStore(rows, num_envs), FrameStore(rows, num_envs, pixel_spec(stack, padding))
    collect(noise_envs(num_envs, stack, padding), [naive, frames], steps)
    assert int(naive.data["terminated"].sum()) > 50 and int(naive.data["truncated"].sum()) > 20  # many episode ends
    assert assert_same_samples(naive, frames, n) == (steps - n + 1) * num_envs  # nothing overwritten: all valid


@pytest.mark.parametrize("n", [1, 3])
def test_after_wrapping_around_valid_samples_still_equal_the_naive_stores(n):
    # Episodes of ~7 steps write one frame in 7 more than steps: the frame rings (rows / 16 spare)
    # overwrite the oldest steps' frames before their rows, and those steps are reported invalid.
    stack, num_envs, rows = 4, 2, 160
    naive, frames = StepStore(rows, num_envs), FrameStore(rows, num_envs, pixel_spec(stack, "first"))
    collect(noise_envs(num_envs, stack, "first"), [naive, frames], 3 * rows + 7)
    valid = assert_same_samples(naive, frames, n)
    assert (rows - n + 1) * num_envs * 0.6 < valid < (rows - n + 1) * num_envs


@pytest.mark.parametrize("cls", [UniformReplay, PrioritizedReplay])
def test_replays_sample_only_valid_steps(cls):
    stack, num_envs, capacity = 4, 2, 320
    replay = cls(
        pixel_spec(stack, "first"),
        num_envs,
        0.9,
        total_env_steps=10_000,
        capacity=capacity,
        batch_size=256,
        learning_starts=0,
        n_step=3,
    )
    assert isinstance(replay.store, FrameStore)
    collect(noise_envs(num_envs, stack, "first"), [replay], 3 * capacity // num_envs + 5)
    for _ in range(5):
        batch = replay.sample()
        assert batch.obs.shape == (256, stack, *FRAME) and batch.obs.dtype == torch.uint8
        assert (batch.obs[:, -1] > 0).all()  # a real newest frame, never padding or an unwritten slot


@pytest.mark.parametrize(
    "backend, game, kwargs", [("ale", "breakout", {}), ("gymnasium", "pong", {"max_episode_frames": 400})]
)
def test_real_atari_stacks_are_rebuilt_exactly(backend, game, kwargs):
    # Breakout's lives end training episodes (terminated); Pong cut at 400 frames is truncated. The
    # ale backend pads first stacks with zeros, gymnasium's FrameStackObservation with the first frame.
    env = AtariEnv(game, backend=backend, threads=1, **kwargs)
    num_envs, steps = 2, 260
    naive, frames = StepStore(2 * steps, num_envs), FrameStore(2 * steps, num_envs, env.spec)
    collect(env.make(num_envs), [naive, frames], steps, env.spec.num_actions)
    ends = naive.data["terminated"] | naive.data["truncated"]
    assert int(ends.sum()) >= 2
    assert assert_same_samples(naive, frames, 3) == (steps - 2) * num_envs
