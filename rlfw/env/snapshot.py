"""A vector env's state as tensors and plain values, so a checkpoint can resume its episodes mid-way.

A synchronous vector env of Python envs (gymnasium's classic control, Catch, most third-party envs)
keeps its whole state in attributes: positions, step counters, the frame stack's deque, each env's
``np_random`` generator. ``snapshot`` walks the vector env, each sub-env and its wrapper chain, and
keeps every attribute as tensors and plain containers (what ``torch.load(weights_only=True)``
reads back); ``restore`` writes them into a freshly made vector env of the same config.

Attributes that describe the env rather than its state (spaces, its registry spec, enums, callables)
are left out. Anything else that is not plain data (an emulator such as ALE's, a subprocess, a
socket) makes the env not restorable: ``snapshot`` raises ``NotRestorable`` naming it, rather than
saving a state that would resume differently.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from enum import Enum
from typing import Any

import gymnasium as gym
import numpy as np
import torch

DESCRIPTIONS = (gym.Space, gym.envs.registration.EnvSpec, Enum, type)  # not state: left out
CHAIN = frozenset({"env", "envs", "env_fns"})  # walked (the wrapper chain, the sub-envs), not stored
_SKIP = object()


class NotRestorable(Exception):
    """The env holds state that cannot be kept as tensors and plain values."""


def snapshot(envs: gym.vector.VectorEnv) -> dict[str, Any]:
    if not isinstance(envs, gym.vector.SyncVectorEnv):
        raise NotRestorable(f"{type(envs).__name__} keeps its envs' state outside Python")
    return {
        "vector": _encode_vars(envs, type(envs).__name__),
        "envs": [[_encode_vars(layer, type(layer).__name__) for layer in _layers(env)] for env in envs.envs],
    }


def restore(envs: gym.vector.SyncVectorEnv, state: dict[str, Any]) -> None:
    """Writes ``snapshot``'s result into ``envs``, a vector env made (and reset) from the same config."""
    _restore_vars(envs, state["vector"])
    for env, layers in zip(envs.envs, state["envs"], strict=True):
        for layer, values in zip(_layers(env), layers, strict=True):
            _restore_vars(layer, values)


def _layers(env: gym.Env) -> Iterator[Any]:
    """The env's wrappers, outermost first, then the env itself."""
    while True:
        yield env
        if not isinstance(env, gym.Wrapper):
            return
        env = env.env


def _encode_vars(obj: Any, where: str) -> dict[str, Any]:
    encoded = {}
    for key, value in vars(obj).items():
        if key not in CHAIN:
            value = _encode(value, f"{where}.{key}")
            if value is not _SKIP:
                encoded[key] = value
    return encoded


def _encode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype == object:
            raise NotRestorable(f"{where} is an array of Python objects")
        scalar = isinstance(value, np.generic)
        if array.dtype.kind in "SU":  # text (Taxi's map): its bytes, as torch has no text dtype
            raw = torch.from_numpy(np.frombuffer(array.tobytes(), np.uint8).copy())
            return {"text": raw, "dtype": array.dtype.str, "shape": list(array.shape), "scalar": scalar}
        return {"ndarray": torch.from_numpy(array.copy()), "scalar": scalar}
    if isinstance(value, np.random.Generator):
        return {"generator": value.bit_generator.state}
    if isinstance(value, (list, tuple, deque)):
        items = [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if any(v is _SKIP for v in items):
            return _SKIP
        if isinstance(value, deque):
            return {"deque": items, "maxlen": value.maxlen}
        return {"tuple": items} if isinstance(value, tuple) else items
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return _SKIP
        entries = {k: _encode(v, f"{where}[{k!r}]") for k, v in value.items()}
        return _SKIP if any(v is _SKIP for v in entries.values()) else {"dict": entries}
    if isinstance(value, DESCRIPTIONS) or callable(value):
        return _SKIP
    raise NotRestorable(f"{where} holds a {type(value).__module__}.{type(value).__name__}")


def _restore_vars(obj: Any, values: dict[str, Any]) -> None:
    for key, value in values.items():
        current = getattr(obj, key, None)
        if isinstance(value, dict) and "generator" in value and isinstance(current, np.random.Generator):
            current.bit_generator.state = value["generator"]  # in place: wrappers may share the object
        else:
            setattr(obj, key, _decode(value))


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "ndarray" in value or "text" in value:
        if "ndarray" in value:
            array = value["ndarray"].numpy().copy()
        else:
            array = np.frombuffer(value["text"].numpy().tobytes(), value["dtype"]).reshape(value["shape"]).copy()
        return array[()] if value["scalar"] else array
    if "generator" in value:
        generator = getattr(np.random, value["generator"]["bit_generator"])()
        generator.state = value["generator"]
        return np.random.Generator(generator)
    if "deque" in value:
        return deque((_decode(v) for v in value["deque"]), maxlen=value["maxlen"])
    if "tuple" in value:
        return tuple(_decode(v) for v in value["tuple"])
    return {k: _decode(v) for k, v in value["dict"].items()}
