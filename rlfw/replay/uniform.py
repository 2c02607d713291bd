"""Uniform experience replay over a preallocated ring buffer, with optional n-step returns."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.machine import require_memory
from rlfw.registry import register
from rlfw.replay.contract import Replay
from rlfw.replay.frames import FrameStore, bytes_per_transition
from rlfw.replay.steps import StepStore


@register("replay", "uniform")
class UniformReplay(Replay):
    """Every ``collect_steps`` vector steps, yields ``updates`` batches of ``batch_size`` transitions
    sampled uniformly from the last ``capacity`` transitions (once ``learning_starts`` were stored).
    Where a copy of the env is several rows (``EnvSpec.rows_per_copy``: its agents), each sampled transition
    brings every row of its copy's step, adjacent: ``batch_size x rows`` rows, joint steps a loss can sum
    over (VDN's).
    """

    provides = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    joint = True

    def __init__(
        self,
        spec: EnvSpec,
        num_envs: int,
        gamma: float,
        total_env_steps: int,
        capacity: int = 100_000,
        batch_size: int = 64,
        learning_starts: int = 1000,
        collect_steps: int = 1,
        updates: int = 1,
        n_step: int = 1,
    ):
        for key, value in (
            ("capacity", capacity),
            ("batch_size", batch_size),
            ("collect_steps", collect_steps),
            ("n_step", n_step),
        ):
            require(value >= 1, f"replay.{key}", value, "must be >= 1")
        require(updates >= 1, "replay.updates", updates, "must be >= 1 (batches per collect phase)")
        require(learning_starts >= 0, "replay.learning_starts", learning_starts, "must be >= 0")
        require(
            batch_size <= capacity,
            "replay.batch_size",
            batch_size,
            f"must not exceed replay.capacity={capacity}",
        )
        require(
            capacity >= num_envs * (n_step + 1),
            "replay.capacity",
            capacity,
            f"must hold at least (n_step + 1) * num_envs = {num_envs * (n_step + 1)} transitions",
        )
        rows = capacity // num_envs
        sampleable = (rows - n_step + 1) * num_envs  # a full buffer's transitions with a complete n-step window
        require(
            learning_starts <= sampleable,
            "replay.learning_starts",
            learning_starts,
            f"learning would never start: replay.capacity={capacity} holds {sampleable} sampleable transitions",
        )
        first_update = self.first_sample(learning_starts, batch_size) + (n_step - 1) * num_envs
        require(
            first_update <= total_env_steps,
            "replay.learning_starts",
            learning_starts,
            f"the first update would come after total_env_steps={total_env_steps} (it needs {first_update} env steps)",
        )
        if spec.frame_stack:  # stacked frames: each frame kept once, stacks rebuilt at sample time
            per_transition = bytes_per_transition(spec, rows)
            self.store: StepStore = FrameStore(rows, num_envs, spec)
        else:  # obs and next_obs, int64 action, float32 reward, two bool flags
            per_transition = 2 * spec.obs_bytes + 14
            self.store = StepStore(rows, num_envs)
        require_memory(
            int(rows * num_envs * per_transition),
            "replay.capacity",
            capacity,
            f"the buffer ({per_transition:,.0f} bytes a transition)",
        )
        self.num_envs, self.gamma, self.n_step, self.joint_rows = num_envs, gamma, n_step, spec.rows_per_copy
        self.batch_size, self.learning_starts = batch_size, learning_starts
        self.collect_steps, self.updates = collect_steps, updates

    def __len__(self) -> int:
        """Transitions whose n-step window is complete (the ones that can be sampled)."""
        return max(0, self.store.size - self.n_step + 1) * self.num_envs

    def add(self, step: dict[str, np.ndarray]) -> None:
        self.store.add(step)

    @staticmethod
    def first_sample(learning_starts: int, batch_size: int) -> int:
        """The transitions stored before the first batch is drawn."""
        return max(learning_starts, batch_size)

    def ready(self) -> bool:
        return len(self) >= self.first_sample(self.learning_starts, self.batch_size)

    def sample(self) -> Batch:
        return self.draw(self.batch_size)

    def draw(self, size: int) -> Batch:
        """``size`` transitions, drawn uniformly."""
        t, e = self._draw(size)
        invalid = ~self.store.valid(t, e)
        while invalid.any():  # steps whose frames were overwritten (see FrameStore): draw again
            t[invalid], e[invalid] = self._draw(int(invalid.sum()))
            invalid = ~self.store.valid(t, e)
        if self.joint_rows > 1:  # every row of the drawn steps' env copies (a copy's rows are adjacent)
            first = e - e % self.joint_rows
            t, e = t.repeat_interleave(self.joint_rows), (first[:, None] + torch.arange(self.joint_rows)).flatten()
        return self.store.n_step(t, e, self.n_step, self.gamma)

    def _draw(self, size: int) -> tuple[torch.Tensor, torch.Tensor]:
        t = (self.store.oldest_row() + torch.randint(len(self) // self.num_envs, (size,))) % self.store.rows
        return t, torch.randint(self.num_envs, (size,))

    def batches(self, net) -> Iterator[Batch]:
        for _ in range(self.updates):
            yield self.sample()

    def feedback(self, batch: Batch) -> None:
        """Nothing to hear: every transition is as likely as any other."""

    # A checkpoint keeps the replay's contents (``rlfw.state.checkpoint``), so a resumed run samples what
    # the uninterrupted one would have.
    def state_dict(self) -> dict:
        return {"store": self.store.state_dict()}

    def load_state_dict(self, state: dict) -> None:
        self.store.load_state_dict(state["store"])

    def end_episodes(self) -> None:
        self.store.end_episodes()
