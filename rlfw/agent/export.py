"""A trained policy as one self-contained file: TorchScript or ONNX, with a JSON beside it.

The file maps a batch of observations, as the env gives them (uint8 pixels stay uint8), to the
greedy actions: the network with everything it keeps (pixel scaling, statistics held as buffers)
and the head's own ``mode`` (argmax Q, the policy's most likely action), all in fp32 (a run's bf16
convolutions too: ONNX runtimes' CPU convolutions take no bf16). The JSON says what goes in and
what comes out.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from rlfw.agent.load import Agent
from rlfw.errors import ConfigError
from rlfw.network.encoder.cnn import fp32

FORMATS = {"torchscript": ".pt", "onnx": ".onnx"}
ONNX_NEEDS = ("onnx", "onnxscript", "onnxruntime")  # torch's ONNX exporter, and onnxruntime to check the file


class Policy(nn.Module):
    """Observations in, greedy actions out (clipped to a Box's bounds, as the env takes them)."""

    low: torch.Tensor
    high: torch.Tensor

    def __init__(self, net: nn.Module, space: gym.Space):
        super().__init__()
        self.net = net
        self.bounded = isinstance(space, gym.spaces.Box)
        if isinstance(space, gym.spaces.Box):
            self.register_buffer("low", torch.as_tensor(space.low))
            self.register_buffer("high", torch.as_tensor(space.high))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        action = self.net.mode(self.net(obs))  # type: ignore[operator]
        return torch.clamp(action, self.low, self.high) if self.bounded else action


def example(agent: Agent, rows: int = 2) -> torch.Tensor:
    """A batch of observations of the agent's shape and dtype."""
    return torch.from_numpy(np.zeros((rows, *agent.spec.obs_shape), agent.spec.obs_dtype))


def require_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ConfigError(f"format={fmt!r}: not an export format; valid: {', '.join(FORMATS)}")
    missing = [m for m in ONNX_NEEDS if importlib.util.find_spec(m) is None]
    if fmt == "onnx" and missing:
        raise ConfigError(f"format=onnx needs {', '.join(missing)}: pip install 'rlfw[export]'")


def export(agent: Agent, fmt: str, out: Path) -> tuple[Path, Path]:
    """Writes the policy file ``out`` and ``<out>.json`` beside it; returns both paths."""
    require_format(fmt)
    policy = Policy(agent.net, agent.spec.action_space).to("cpu").eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    with fp32(agent.net):  # the file, and the agent it is checked against
        with torch.no_grad():
            if fmt == "torchscript":
                with warnings.catch_warnings():  # torch 2.13 deprecates TorchScript; the user asked for it
                    warnings.simplefilter("ignore", DeprecationWarning)
                    torch.jit.trace(policy, example(agent)).save(str(out))
            else:
                onnx(policy, example(agent), out)
        verify(agent, fmt, out)
    spec = out.with_name(out.name + ".json")
    spec.write_text(json.dumps(description(agent, fmt, out), indent=2))
    return out, spec


def run_file(fmt: str, path: Path, obs: np.ndarray) -> np.ndarray:
    """The actions an exported file picks for a batch of observations."""
    if fmt == "torchscript":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return torch.jit.load(str(path))(torch.from_numpy(obs)).numpy()
    import onnxruntime

    return onnxruntime.InferenceSession(str(path)).run(["action"], {"obs": obs})[0]


def verify(agent: Agent, fmt: str, path: Path) -> None:
    """The file, loaded back, picks the agent's actions on the first observations of the eval envs
    (continuous ones up to float rounding)."""
    envs = agent.make_env(8)
    obs, _ = envs.reset(seed=agent.eval_seed())
    envs.close()
    got, want = run_file(fmt, path, np.asarray(obs)), agent.predict(obs)[0]
    same = np.allclose(got, want, rtol=1e-5, atol=1e-5) if want.dtype.kind == "f" else np.array_equal(got, want)
    if not same:  # a Gaussian's mean may differ in its last bits in another runtime
        raise RuntimeError(f"{path} picks actions {got.tolist()} where the agent picks {want.tolist()}")


def onnx(policy: Policy, obs: torch.Tensor, out: Path) -> None:
    """torch's ONNX exporter (torch.export), with a batch dimension of any size."""
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)  # it logs every op it could not find a plugin for
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            policy,
            (obs,),
            str(out),
            input_names=["obs"],
            output_names=["action"],
            dynamic_shapes=({0: torch.export.Dim("batch")},),
            external_data=False,  # the weights inside the one file
            verbose=False,
        )


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
        },
        "output": {"name": "action", "shape": ["batch", *(space.shape or ())], "dtype": str(np.dtype(space.dtype))},
        "action_space": action_space(space),
        "env": agent.spec.id,
        "checkpoint": str(agent.checkpoint),
        "env_steps": agent.env_steps,
        "greedy": "the head's mode: argmax Q, or the policy's most likely action",
    }
