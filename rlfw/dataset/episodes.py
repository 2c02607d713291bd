"""A finished run's replay as whole episodes, in the order they were played.

The replay file beside a checkpoint holds ``[rows, num_envs, ...]`` tensors, each env's steps in time
order from row ``pos - size`` (a ring). Each env column is cut after every terminated or truncated step;
where the ring wrapped, a column's first episode may have lost its start, so it is left out; a column's
last, unfinished episode ends truncated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rlfw.errors import ConfigError

FIELDS = ("obs", "action", "reward", "next_obs", "terminated", "truncated")


@dataclass
class Episode:
    observations: np.ndarray  # [T + 1, ...]: the first observation, then each step's next one
    actions: np.ndarray  # [T, ...]
    rewards: np.ndarray  # [T]
    terminations: np.ndarray  # [T] bool
    truncations: np.ndarray  # [T] bool

    def __len__(self) -> int:
        return len(self.actions)


def from_replay(replay: dict[str, Any], source: str) -> list[Episode]:
    """The episodes in ``replay`` (a replay's ``state_dict``: ``{"store": {pos, size, data}}``), env by env."""
    store = replay.get("store", {})
    data = store.get("data", {})
    missing = [f for f in FIELDS if f not in data]
    if missing:
        raise ConfigError(
            f"rlfw.dataset: {source} holds no step-by-step transitions ({', '.join(missing)} missing): only an"
            " off-policy run's replay (replay=uniform or prioritized, no frame stacking) can be written as a dataset"
        )
    pos, size = store["pos"], store["size"]
    wrapped = pos != size  # a ring that never wrapped has written rows 0 .. size - 1 (a full one counts as wrapped)
    order = (np.arange(size) + pos) % size if wrapped else np.arange(size)
    arrays = {f: data[f].numpy()[order] for f in FIELDS}
    episodes = []
    for env in range(arrays["obs"].shape[1]):
        column = {f: v[:, env] for f, v in arrays.items()}
        ends = np.flatnonzero(column["terminated"] | column["truncated"])
        starts = [0, *(ends + 1)]
        for i, start in enumerate(starts):
            stop = ends[i] + 1 if i < len(ends) else size
            if stop <= start or (i == 0 and wrapped):  # empty, or possibly cut by the ring
                continue
            steps = slice(start, stop)
            truncations = column["truncated"][steps].copy()
            truncations[-1] |= not column["terminated"][stop - 1]  # the unfinished last episode ends here
            episodes.append(
                Episode(
                    observations=np.concatenate([column["obs"][start : start + 1], column["next_obs"][steps]]),
                    actions=column["action"][steps],
                    rewards=column["reward"][steps].astype(np.float64),
                    terminations=column["terminated"][steps],
                    truncations=truncations,
                )
            )
    if not episodes:
        raise ConfigError(f"rlfw.dataset: {source} holds no whole episode")
    return episodes
