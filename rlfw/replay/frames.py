"""Replay storage for stacked-frame observations that keeps each frame once.

A step's ``obs`` stacks the last ``S`` frames of its episode and ``next_obs`` is the same stack moved
on by one frame, so storing both whole keeps each frame ``2S`` times (56 KB a transition for 4
stacked 84x84 frames). Here each env column has a ring of frames in the order the env made them:
every episode adds its first frame, then one frame per step (the newest frame of ``next_obs``, the
true final frame when the step ended the episode). A step keeps two indices into its column's ring:
its ``obs``'s newest frame and its episode's first frame. At sample time

    obs      = frames[i - S + 1 .. i]          with i = the step's obs frame
    next_obs = frames[i - S + 2 .. i + 1]

where frames before the episode's first are padded the way the env pads its first stack (zeros, or
copies of the first frame), so no stack reaches across an episode start.

An episode start writes one frame more than a step, so the frame rings hold ``rows / 16`` frames
more than the step rows. If a column's episodes average fewer than about 16 steps, its oldest steps
lose frames before their rows are overwritten; ``valid`` reports those, and the replay never
samples them.
"""

from __future__ import annotations

import numpy as np
import torch

from rlfw.env.spec import EnvSpec
from rlfw.replay.steps import StepStore, filled, lazy_zeros

EXTRA_FRAMES = 16  # frame rings hold rows + rows // EXTRA_FRAMES (+ a stack) frames per env
MARKS = ("written", "episode_first", "episode_start")


def frame_rows(rows: int, stack: int) -> int:
    return rows + rows // EXTRA_FRAMES + stack + 1


def bytes_per_transition(spec: EnvSpec, rows: int) -> float:
    """Frame ring bytes per stored step, plus two int64 frame indices, an int64 action, a float32
    reward and two flags."""
    frame_bytes = spec.obs_bytes // spec.frame_stack
    return frame_bytes * frame_rows(rows, spec.frame_stack) / rows + 2 * 8 + 8 + 4 + 2


class FrameStore(StepStore):
    def __init__(self, rows: int, num_envs: int, spec: EnvSpec):
        super().__init__(rows, num_envs)
        self.stack, self.zero_padding = spec.frame_stack, spec.stack_padding == "zeros"
        self.frame_rows = frame_rows(rows, self.stack)
        self.frames = torch.empty(0)  # [frame_rows, num_envs, *frame], allocated on first add
        self.frame_array = self.frames.numpy()  # its numpy view, for ``add``
        # Each column's marks, in numpy (``add`` runs at every vector step):
        self.written = np.zeros(num_envs, dtype=np.int64)  # frames written to each column, ever
        self.episode_first = np.zeros(num_envs, dtype=np.int64)  # the current episode's first frame
        self.episode_start = np.ones(num_envs, dtype=bool)  # the next step starts an episode
        self.columns = np.arange(num_envs)

    def add(self, step: dict[str, np.ndarray]) -> int:
        step = dict(step)
        obs, next_obs = step.pop("obs"), step.pop("next_obs")
        if not self.frames.numel():
            self._hold_frames(lazy_zeros((self.frame_rows, self.num_envs, *obs.shape[2:]), obs.dtype))
        start = self.episode_start
        if start.any():  # a first observation: its newest frame opens the episode
            self._write(obs[start, -1], self.columns[start])
            self.episode_first[start] = self.written[start] - 1
        step["obs_frame"] = self.written - 1
        step["first_frame"] = self.episode_first.copy()
        self._write(next_obs[:, -1], self.columns)
        self.episode_start = step["terminated"] | step["truncated"]
        return super().add(step)

    def _hold_frames(self, frames: torch.Tensor) -> None:
        self.frames, self.frame_array = frames, frames.numpy()

    def _write(self, frames: np.ndarray, columns: np.ndarray) -> None:
        self.frame_array[self.written[columns] % self.frame_rows, columns] = frames
        self.written[columns] += 1

    def observations(self, t: torch.Tensor, e: torch.Tensor, last: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        d = self.data
        obs = self._stack(d["obs_frame"][t, e], d["first_frame"][t, e], e)
        next_obs = self._stack(d["obs_frame"][last, e] + 1, d["first_frame"][last, e], e)
        return obs, next_obs

    def _stack(self, newest: torch.Tensor, first: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        index = newest[:, None] - self.stack + 1 + torch.arange(self.stack)  # [B, S], oldest first
        before = index < first[:, None]  # frames from before the episode: padding
        rows = (torch.maximum(index, first[:, None]) % self.frame_rows) * self.num_envs + e[:, None]
        flat = self.frames.view(-1, *self.frames.shape[2:])  # [frame_rows * num_envs, *frame]
        # index_select on the flat view: one gather, where frames[rows, e] builds two index tensors
        stack = flat.index_select(0, rows.flatten()).view(*index.shape, *flat.shape[1:])
        if self.zero_padding and before.any():
            stack[before] = 0
        return stack

    def state_dict(self) -> dict:
        frames = None if not self.frames.numel() else filled(self.frames, min(self.frame_rows, int(self.written.max())))
        return {
            **super().state_dict(),
            "frames": frames,
            **{k: torch.from_numpy(getattr(self, k).copy()) for k in MARKS},
        }

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        if state["frames"] is not None:
            self._hold_frames(lazy_zeros((self.frame_rows, *state["frames"].shape[1:]), state["frames"].numpy().dtype))
            self.frames[: len(state["frames"])] = state["frames"]
        for k in MARKS:
            setattr(self, k, state[k].numpy().copy())

    def end_episodes(self) -> None:
        super().end_episodes()
        self.episode_start[:] = True  # the next step's obs is a first observation

    def valid(self, t: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        oldest = torch.maximum(self.data["obs_frame"][t, e] - self.stack + 1, self.data["first_frame"][t, e])
        return oldest >= torch.from_numpy(self.written)[e] - self.frame_rows
