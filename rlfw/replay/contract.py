"""What a replay strategy is and declares: the one place the fit checks (``rlfw/config/fit.py``),
the plugin listing and ``rlfw.testing`` read its capabilities from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from rlfw.batch import Batch
from rlfw.clock import Clock


class Replay:
    """The data source: ``add(step)`` takes a vector step (numpy arrays ``[num_envs, ...]``), ``ready()``
    says when ``batches(net)`` may yield, ``feedback(batch)`` hears
    the loss's signals about each batch (``batch.signals``); ``state_dict()`` / ``load_state_dict()`` resume
    it, ``end_episodes()`` ends the episodes its last steps were in (envs that a resume could not restore).
    A strategy subclasses this class."""

    provides: frozenset[str] = frozenset()  # the batch fields it yields
    needs_extras: frozenset[str] = frozenset()  # what the explore rule must record while acting
    needs_signals: frozenset[str] = frozenset()  # what the loss must signal about each batch (``td_error``)
    collect_steps: int = 1  # vector steps between update phases
    sequences: bool = False  # yields env columns in time order (what a recurrent head trains on)
    # with many agents as rows (EnvSpec.agents), yields every agent's row of a sampled step, adjacent
    # (what a loss over the agents' joint step, VDN's, reads)
    joint: bool = False
    # a dataset (``rlfw.replay.dataset``): nothing is added, no env is stepped to train, and the run counts
    # its budget and schedule in updates (``total_updates``)
    fixed: bool = False
    # reads a dataset (``data=...``, given to the constructor as ``data``): a fixed replay, or one that mixes
    # the dataset into the run's own steps (``rlfw.replay.mixed``)
    needs_data: bool = False
    # a dataset's references for D4RL's normalized score, (random return, expert return); None without
    references: tuple[float, float] | None = None
    clock: Clock = Clock()  # the run's (``rlfw.clock``), set when the run is built; read, never advanced here

    def add(self, step: dict[str, np.ndarray]) -> None:  # pragma: no cover
        raise NotImplementedError

    def ready(self) -> bool:  # pragma: no cover
        raise NotImplementedError

    def batches(self, net: Any) -> Iterator[Batch]:  # pragma: no cover
        raise NotImplementedError

    def feedback(self, batch: Batch) -> None:  # pragma: no cover
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint keeps of it (its contents, so a resumed run samples what the uninterrupted one would)."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Puts ``state_dict``'s result back."""

    def observations(self) -> np.ndarray:  # pragma: no cover
        """A fixed replay's every observation (``network.normalize_obs`` takes its statistics from them)."""
        raise NotImplementedError

    def end_episodes(self) -> None:
        """The envs start new episodes (a resume that could not restore them)."""
