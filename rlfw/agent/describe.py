"""The JSON beside an exported policy: what goes in (the observation, and where each of its parts lies;
a recurrent policy's state) and what comes out (the action, in its space)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from rlfw.agent.load import Agent
from rlfw.network.driver import driver


def action_space(space: gym.Space) -> dict[str, Any]:
    if isinstance(space, gym.spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n)}
    if isinstance(space, gym.spaces.MultiDiscrete):
        return {"type": "MultiDiscrete", "nvec": space.nvec.tolist()}
    assert isinstance(space, gym.spaces.Box)
    return {"type": "Box", "shape": list(space.shape), "low": space.low.tolist(), "high": space.high.tolist()}


def description(agent: Agent, fmt: str, out: Path) -> dict[str, Any]:
    space = agent.spec.action_space
    return {
        "format": fmt,
        "file": out.name,
        "input": {
            "name": "obs",
            "shape": ["batch", *agent.spec.obs_shape],
            "dtype": str(np.dtype(agent.spec.obs_dtype)),
            **parts(agent),
        },
        "output": {"name": "action", "shape": ["batch", *(space.shape or ())], "dtype": str(np.dtype(space.dtype))},
        "action_space": action_space(space),
        "env": agent.spec.id,
        "checkpoint": str(agent.checkpoint),
        "env_steps": agent.env_steps,
        "greedy": "the head's mode: argmax Q, or the policy's most likely action",
        **memory(agent),
    }


def parts(agent: Agent) -> dict[str, Any]:
    """Where each part of a packed observation lies (its entries from ``start``, ``size`` of them): a Dict's
    keys, the global state, the open actions (``action_mask``: 1 where an action is open; the file picks
    among those); nothing for an observation of one array."""
    if not agent.spec.parts:
        return {}
    return {"parts": [{"key": p.key, "kind": p.kind, "start": p.start, "size": p.size} for p in agent.spec.parts]}


def memory(agent: Agent) -> dict[str, Any]:
    """A recurrent policy's other inputs and output: zeros are the state before an episode's first step
    (nothing for a feed-forward one)."""
    initial = dict(zip(driver(agent.net, 1).inputs, driver(agent.net, 1).initial(1), strict=True))
    if "state" not in initial:
        return {}
    state = ["batch", *initial["state"].shape[1:]]
    return {
        "memory": {
            "inputs": [
                {"name": "state", "shape": state, "dtype": "float32", "initial": "zeros"},
                {"name": "episode_start", "shape": ["batch"], "dtype": "bool", "meaning": "true: the state is zeroed"},
            ],
            "output": {"name": "next_state", "shape": state, "dtype": "float32"},
        }
    }
