"""A vector env's state as tensors and plain values, so a checkpoint can resume its episodes mid-way.

A synchronous vector env of Python envs (gymnasium's classic control, Catch, most third-party envs,
PettingZoo's MPE and classic games) keeps its whole state in attributes: positions, step counters, the
frame stack's deque, each env's ``np_random`` generator, objects of plain attributes (MPE's world and its
agents). ``snapshot`` walks the vector env, each sub-env and its wrapper chain (gymnasium's and
PettingZoo's), and keeps every attribute as tensors and plain containers (what
``torch.load(weights_only=True)`` reads back); ``restore`` writes them into a freshly made vector env of
the same config, objects in place (so what two attributes share stays shared). rlfw's own vector envs
(``RowsEnv``: agents as rows, a league) say their state themselves, with the same walk.

Attributes that describe the env rather than its state (spaces, its registry spec, enums, callables)
and those that draw it (a pygame screen, a font, a viewer) are left out. Anything else that is not plain
data (an emulator such as ALE's, a subprocess, a socket) makes the env not restorable: ``snapshot`` raises
``NotRestorable`` naming it, rather than saving a state that would resume differently.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterator
from enum import Enum
from typing import Any, cast

import gymnasium as gym
import numpy as np
import torch

from rlfw.env.rows import RowsEnv

DESCRIPTIONS = (gym.Space, gym.envs.registration.EnvSpec, Enum, type, np.dtype)  # not state: left out
CHAIN = ("env", "aec_env")  # an env's inner env (gymnasium's and PettingZoo's wrappers): walked, not stored
WALKED = frozenset({*CHAIN, "envs", "env_fns"})  # and a vector env's sub-envs
DRAWING = frozenset({"screen", "viewer", "window", "game_font", "clock", "renderer"})  # draws the env: left out
_SKIP = object()


class NotRestorable(Exception):
    """The env holds state that cannot be kept as tensors and plain values."""


def snapshot(envs: gym.vector.VectorEnv) -> dict[str, Any]:
    if isinstance(envs, RowsEnv):
        return {"rows": envs.state_dict()}
    if not isinstance(envs, gym.vector.SyncVectorEnv):
        raise NotRestorable(f"{type(envs).__name__} keeps its envs' state outside Python")
    return {"vector": _encode_vars(envs, type(envs).__name__, set()), "envs": [env_state(env) for env in envs.envs]}


def restore(envs: gym.vector.VectorEnv, saved: dict[str, Any]) -> None:
    """Writes ``snapshot``'s result into ``envs``, a vector env made (and reset) from the same config."""
    if isinstance(envs, RowsEnv):
        envs.load_state_dict(saved["rows"])
        return
    assert isinstance(envs, gym.vector.SyncVectorEnv)
    _restore_vars(envs, saved["vector"])
    for env, layers in zip(envs.envs, saved["envs"], strict=True):
        restore_env(env, layers)


def env_state(env: Any) -> list[dict[str, Any]]:
    """One env's state, layer by layer (its wrappers, outermost first, then the env itself)."""
    seen: set[int] = set()
    return [_encode_vars(layer, type(layer).__name__, seen) for layer in _layers(env)]


def restore_env(env: Any, layers: list[dict[str, Any]]) -> None:
    for layer, values in zip(_layers(env), layers, strict=True):
        _restore_vars(layer, values)


def _layers(env: Any) -> Iterator[Any]:
    """The env's wrappers, outermost first, then the env itself."""
    while env is not None:
        yield env
        inner = vars(env)
        env = next((inner[name] for name in CHAIN if name in inner), None)


def _encode_vars(obj: Any, where: str, seen: set[int]) -> dict[str, Any]:
    seen.add(id(obj))
    encoded = {}
    for key, value in vars(obj).items():
        if key not in WALKED and key not in DRAWING:
            value = _encode(value, f"{where}.{key}", seen)
            if value is not _SKIP:
                encoded[key] = value
    return encoded


def _encode(value: Any, where: str, seen: set[int]) -> Any:
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
        items = [_encode(v, f"{where}[{i}]", seen) for i, v in enumerate(value)]
        if any(v is _SKIP for v in items):
            return _SKIP
        if isinstance(value, deque):
            return {"deque": items, "maxlen": value.maxlen}
        return {"tuple": items} if isinstance(value, tuple) else items
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return _SKIP
        entries = {k: _encode(v, f"{where}[{k!r}]", seen) for k, v in value.items()}
        return _SKIP if any(v is _SKIP for v in entries.values()) else {"dict": entries}
    if isinstance(value, DESCRIPTIONS) or callable(value) or _frozen(value):
        return _SKIP
    if id(value) in seen:  # an object met before (a shared one, a cycle): restored where it was first met
        return {"seen": True}
    try:
        vars(value)  # an object of plain attributes (MPE's world, its agents and their states)
    except TypeError:
        raise NotRestorable(f"{where} holds a {type(value).__module__}.{type(value).__name__}") from None
    return {"object": _encode_vars(value, where, seen)}


def _frozen(value: Any) -> bool:
    """A frozen dataclass (a packed observation's ``Part``): a value that describes, never changes."""
    return dataclasses.is_dataclass(value) and bool(cast(Any, value).__dataclass_params__.frozen)


def _restore_vars(obj: Any, values: dict[str, Any]) -> None:
    for key, value in values.items():
        current = vars(obj).get(key)
        if isinstance(value, dict) and "generator" in value and isinstance(current, np.random.Generator):
            current.bit_generator.state = value["generator"]  # in place: wrappers may share the object
        elif not _restored_in_place(current, value):
            setattr(obj, key, _decode(value))


def _restored_in_place(current: Any, value: Any) -> bool:
    """Whether ``value`` went into ``current`` itself: an object's attributes (restored where it was
    first met), or a list of such objects, each into the fresh env's own."""
    if isinstance(value, dict) and "seen" in value:
        return True
    if isinstance(value, dict) and "object" in value:
        if current is None:
            raise RuntimeError("restore: the fresh env lacks an object the saved one had (a different config?)")
        _restore_vars(current, value["object"])
        return True
    if isinstance(value, list) and isinstance(current, list) and len(value) == len(current) and value:
        if all(isinstance(v, dict) and ("object" in v or "seen" in v) for v in value):
            for item, v in zip(current, value, strict=True):
                _restored_in_place(item, v)
            return True
    return False


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
