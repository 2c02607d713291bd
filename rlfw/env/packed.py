"""Dict observations packed into one flat array, so the collector, the replays, checkpoints, exact resume
and exported files handle them as any observation; the ``multi`` encoder reads each key back out.

    parts = layout(space)        # a Part per key: where it lies in the flat array and how to read it
    Packed(env, parts)           # a Dict observation -> one [size] array

A key is read by what it holds: an image (a uint8 Box of 2 or 3 dimensions) by a CNN, a Discrete or
MultiDiscrete one-hot (stored as its index: one entry, not n), a MultiBinary or a vector Box as its
values. The open actions (``action_mask``, ``rlfw.env.masks``) are a part too, of kind ``mask``: no encoder
reads it, the head applies it to its action scores. The array is uint8 when every key fits in a byte (images, small Discretes: MiniGrid's image and
direction), the memory-lean case; float32 otherwise. Keys no encoder reads (Text: MiniGrid's
``mission``) are left out, and ``left_out`` names them for the run's log.
"""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium as gym
import numpy as np

from rlfw.errors import ConfigError

KEY = "action_mask"  # the open actions' key in an observation (PettingZoo's classic games, rlfw.env.masks)
MASK = "mask"  # their part's kind
STATE = "state"  # the key of a multi-agent env's global state in its rows (a critic's input: MAPPO)


@dataclass(frozen=True)
class Part:
    key: str
    kind: str  # "image", "discrete" or "vector": which reader the multi encoder gives it; "mask": the open actions
    shape: tuple[int, ...]  # the key's own shape (an image's as the env gives it)
    start: int  # where its entries begin in the packed array
    size: int  # how many entries it takes there
    classes: tuple[int, ...] = ()  # a discrete key's number of values, per entry (its one-hot sizes)
    low: int = 0  # a Discrete's first value (gymnasium's ``start``): stored as value - low


def _part(key: str, space: gym.Space, start: int) -> Part | None:
    if key == KEY and isinstance(space, gym.spaces.MultiBinary):
        return Part(key, MASK, tuple(space.shape), start, int(np.prod(space.shape)))
    if isinstance(space, gym.spaces.Discrete):
        return Part(key, "discrete", (), start, 1, (int(space.n),), int(space.start))
    if isinstance(space, gym.spaces.MultiDiscrete) and space.nvec.ndim == 1:
        return Part(key, "discrete", space.shape, start, len(space.nvec), tuple(int(n) for n in space.nvec))
    if isinstance(space, gym.spaces.MultiBinary):
        return Part(key, "vector", tuple(np.atleast_1d(space.shape)), start, int(np.prod(space.shape)))
    if isinstance(space, gym.spaces.Box):
        pixels = space.dtype == np.uint8 and len(space.shape) in (2, 3) and min(space.shape[-2:]) > 1
        kind = "image" if pixels else "vector"  # a board of small codes (Connect Four's int8) reads as a vector
        return Part(key, kind, tuple(space.shape), start, int(np.prod(space.shape)))
    return None


def layout(space: gym.spaces.Dict) -> tuple[tuple[Part, ...], list[str]]:
    """The parts of ``space``'s keys in its order, and the keys left out (no encoder reads them)."""
    parts, left_out, start = [], [], 0
    for key, sub in space.spaces.items():
        part = _part(key, sub, start)
        if part is None:
            left_out.append(f"{key} ({type(sub).__name__})")
            continue
        parts.append(part)
        start += part.size
    return tuple(parts), left_out


def fits_a_byte(space: gym.spaces.Dict, parts: tuple[Part, ...]) -> bool:
    """Whether every part's values lie in 0..255 once stored."""
    for part in parts:
        sub = space.spaces[part.key]
        if part.kind == "discrete" and max(part.classes) > 256:
            return False
        if isinstance(sub, gym.spaces.Box) and sub.dtype != np.uint8:
            return False
    return True


class Packed(gym.ObservationWrapper):
    """A Dict observation as one flat array, the keys' entries in ``parts`` order; ``left_out``: the keys
    it drops."""

    def __init__(self, env: gym.Env, parts: tuple[Part, ...], dtype: np.dtype, left_out: list[str]):
        super().__init__(env)
        self.parts, self.dtype, self.left_out = parts, np.dtype(dtype), left_out
        size = parts[-1].start + parts[-1].size
        high = 255 if self.dtype == np.uint8 else np.inf
        self.observation_space = gym.spaces.Box(0 if self.dtype == np.uint8 else -np.inf, high, (size,), self.dtype)

    def observation(self, observation: dict | tuple) -> np.ndarray:
        return pack(keyed(observation), self.parts, self.dtype)


def keyed(observation: dict | tuple) -> dict:
    """A Tuple observation as a Dict keyed by position ("0", "1", ...); a Dict as it is."""
    return observation if isinstance(observation, dict) else {str(i): v for i, v in enumerate(observation)}


def readable(space: gym.Space) -> bool:
    """Whether a part of ``space`` is read as it is (else it is flattened one-hot first: ``rlfw.env.flat``)."""
    return isinstance(space, gym.spaces.Dict) or _part("observation", space, 0) is not None


def has_image(space: gym.spaces.Tuple) -> bool:
    """Whether a Tuple holds an image a CNN reads (else it is flattened one-hot: ``rlfw.env.flat``)."""
    return any(p.kind == "image" for p in layout(gym.spaces.Dict(keyed(tuple(space.spaces))))[0])


def pack(observation: dict, parts: tuple[Part, ...], dtype: np.dtype) -> np.ndarray:
    """One Dict observation, or a batch of them (each key's values with leading batch axes), packed."""
    first = np.asarray(observation[parts[0].key])
    batch = first.shape[: first.ndim - len(parts[0].shape)]
    out = np.empty((*batch, parts[-1].start + parts[-1].size), dtype)
    for part in parts:
        value = np.asarray(observation[part.key]).reshape(*batch, part.size)
        out[..., part.start : part.start + part.size] = value - part.low if part.low else value
    return out


def unpack(rows: np.ndarray, parts: tuple[Part, ...]) -> dict[str, np.ndarray]:
    """``pack``'s inverse for a batch of packed observations ``[N, size]``: each key's values as ``space(parts)``
    holds them (a Discrete's index back to its value, the open actions as 0/1 bytes)."""
    dtypes = {"discrete": np.int64, MASK: np.int8, "image": np.uint8, "vector": np.float32}
    out = {}
    for part in parts:
        value = rows[:, part.start : part.start + part.size].astype(dtypes[part.kind]) + part.low
        out[part.key] = value.reshape(len(rows), *part.shape)
    return out


def space(parts: tuple[Part, ...]) -> gym.spaces.Dict:
    """A Dict space of the parts' keys as ``unpack`` gives them (a vector key's bounds are not kept)."""

    def one(part: Part) -> gym.Space:
        if part.kind == "discrete":
            return (
                gym.spaces.Discrete(part.classes[0], start=part.low)
                if part.shape == ()
                else gym.spaces.MultiDiscrete(list(part.classes))
            )
        if part.kind == MASK:
            return gym.spaces.MultiBinary(part.shape)
        if part.kind == "image":
            return gym.spaces.Box(0, 255, part.shape, np.uint8)
        return gym.spaces.Box(-np.inf, np.inf, part.shape, np.float32)

    return gym.spaces.Dict({part.key: one(part) for part in parts})


def packed(env: gym.Env) -> gym.Env:
    """``env`` with its Dict observation packed (``Packed``), or its Tuple observation that holds an image,
    keyed by position; any other observation comes back as it is. A Dict with no key an encoder reads is
    refused in one line."""
    space = env.observation_space
    if isinstance(space, gym.spaces.Tuple) and has_image(space):
        space = gym.spaces.Dict(keyed(tuple(space.spaces)))
    if not isinstance(space, gym.spaces.Dict):
        return env
    parts, left_out = layout(space)
    if not any(p.kind != MASK for p in parts):
        raise ConfigError(f"the env's Dict observation has no key rlfw's encoders read: {', '.join(left_out)}")
    return Packed(env, parts, np.dtype(np.uint8 if fits_a_byte(space, parts) else np.float32), left_out)
