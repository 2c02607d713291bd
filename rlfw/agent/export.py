"""A trained policy as one self-contained file: TorchScript or ONNX, with a JSON beside it.

The file maps a batch of observations, as the run's envs give them (uint8 pixels stay uint8; the open
actions among their parts where the env gives masks), to the greedy actions: the network with
everything it keeps (pixel scaling, statistics held as buffers, closing the actions an observation
closes) and the head's own ``mode`` (argmax Q, the policy's most likely action), all in fp32 (a run's
bf16 convolutions too: ONNX runtimes' CPU convolutions take no bf16). A recurrent policy's file also
takes its ``state`` and ``episode_start`` and returns the next state (as Sample Factory's exporter
does). The JSON says what goes in (an observation's parts, where it packs several) and what comes out.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import warnings
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from rlfw.agent.describe import description
from rlfw.agent.load import Agent
from rlfw.errors import ConfigError
from rlfw.network.driver import driver
from rlfw.network.precision import fp32

FORMATS = {"torchscript": ".pt", "onnx": ".onnx"}
ONNX_NEEDS = ("onnx", "onnxscript", "onnxruntime")  # torch's ONNX exporter, and onnxruntime to check the file


class Policy(nn.Module):
    """Observations (and what the policy carries between steps: a recurrent one's ``state`` and
    ``episode_start``) in; greedy actions, clipped to a Box's bounds as the env takes them (and the next
    ``state``), out."""

    low: torch.Tensor
    high: torch.Tensor

    def __init__(self, net: nn.Module, space: gym.Space, returns: tuple[str, ...]):
        super().__init__()
        self.net, self.returns = net, returns
        self.bounded = isinstance(space, gym.spaces.Box)
        if isinstance(space, gym.spaces.Box):
            self.register_buffer("low", torch.as_tensor(space.low))
            self.register_buffer("high", torch.as_tensor(space.high))

    def forward(self, obs: torch.Tensor, *carried: torch.Tensor) -> torch.Tensor | tuple[torch.Tensor, ...]:
        out = self.net(obs, *carried)
        action = self.net.mode(out)  # type: ignore[operator]
        action = torch.clamp(action, self.low, self.high) if self.bounded else action
        return (action, *(out[name] for name in self.returns)) if self.returns else action


def example(agent: Agent, rows: int = 2) -> tuple[torch.Tensor, ...]:
    """A batch of observations of the agent's shape and dtype, and the other inputs at an episode's start
    (what the file is traced on: its values do not matter)."""
    obs = torch.from_numpy(np.zeros((rows, *agent.spec.obs_shape), agent.spec.obs_dtype))
    return obs, *driver(agent.net, rows).initial(rows)


def inputs(agent: Agent) -> list[str]:
    return ["obs", *driver(agent.net, 1).inputs]


def outputs(agent: Agent) -> list[str]:
    return ["action", *(f"next_{name}" for name in driver(agent.net, 1).returns)]


def require_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ConfigError(f"format={fmt!r}: not an export format; valid: {', '.join(FORMATS)}")
    missing = [m for m in ONNX_NEEDS if importlib.util.find_spec(m) is None]
    if fmt == "onnx" and missing:
        raise ConfigError(f"format=onnx needs {', '.join(missing)}: pip install 'rlfw[export]'")


def export(agent: Agent, fmt: str, out: Path) -> tuple[Path, Path]:
    """Writes the policy file ``out`` and ``<out>.json`` beside it; returns both paths."""
    require_format(fmt)
    returns = driver(agent.net, 1).returns
    policy = Policy(agent.net, agent.spec.action_space, returns).to("cpu").eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    with fp32(agent.net):  # the file, and the agent it is checked against
        with torch.no_grad():
            if fmt == "torchscript":
                with warnings.catch_warnings():  # torch 2.13 deprecates TorchScript; the user asked for it
                    warnings.simplefilter("ignore", DeprecationWarning)
                    # nn.LSTM's shape checks trace as constants; verify() below runs the file on other batches
                    warnings.simplefilter("ignore", torch.jit.TracerWarning)
                    torch.jit.trace(policy, example(agent)).save(str(out))
            else:
                onnx(policy, example(agent), inputs(agent), outputs(agent), out)
        verify(agent, fmt, out)
    spec = out.with_name(out.name + ".json")
    spec.write_text(json.dumps(description(agent, fmt, out), indent=2))
    return out, spec


def load_file(fmt: str, path: Path) -> Callable[..., list[np.ndarray]]:
    """An exported file as a function: numpy inputs (``obs``; a recurrent policy's also ``state`` and
    ``episode_start``) in, its numpy outputs out (``action``; and ``next_state``), as a list."""
    if fmt == "torchscript":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = torch.jit.load(str(path))

        def scripted(*arrays: np.ndarray) -> list[np.ndarray]:
            out = module(*(torch.from_numpy(np.asarray(a)) for a in arrays))
            return [t.numpy() for t in (out if isinstance(out, tuple) else (out,))]

        return scripted
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path))
    names = [i.name for i in session.get_inputs()]
    return lambda *arrays: session.run(None, dict(zip(names, arrays, strict=True)))


def verify(agent: Agent, fmt: str, path: Path, steps: int = 100) -> None:
    """The file, loaded back, picks the agent's actions (continuous ones up to float rounding) over
    ``steps`` steps of the eval envs' episodes, each side carrying its own state (a recurrent policy's)."""
    envs = agent.make_env(8)
    rows = envs.num_envs  # 8 copies of the env, each one row or several (EnvSpec.rows_per_copy)
    obs, _ = envs.reset(seed=agent.eval_seed())
    run, carried = load_file(fmt, path), [t.numpy() for t in driver(agent.net, rows).initial(rows)]
    state, starts = None, np.ones(rows, dtype=bool)
    for _ in range(steps):
        want, state = agent.predict(obs, state, starts)
        got, *returned = run(np.asarray(obs), *carried)
        same = np.allclose(got, want, rtol=1e-5, atol=1e-5) if want.dtype.kind == "f" else np.array_equal(got, want)
        if not same:  # a Gaussian's mean may differ in its last bits in another runtime
            raise RuntimeError(f"{path} picks actions {got.tolist()} where the agent picks {want.tolist()}")
        obs, _, terminated, truncated, _ = envs.step(want)
        starts = terminated | truncated
        carried = [*returned, starts][: len(carried)]  # the next state, and where episodes start anew
    envs.close()


def onnx(policy: Policy, example: tuple[torch.Tensor, ...], names: list[str], outs: list[str], out: Path) -> None:
    """torch's ONNX exporter (torch.export), with a batch dimension of any size."""
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)  # it logs every op it could not find a plugin for
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = torch.export.Dim("batch")
        carried = tuple({0: batch} for _ in example[1:])  # torch.export sees forward's *rest as one argument
        torch.onnx.export(
            policy,
            example,
            str(out),
            input_names=names,
            output_names=outs,
            dynamic_shapes=({0: batch}, carried) if carried else ({0: batch},),
            external_data=False,  # the weights inside the one file
            verbose=False,
        )
