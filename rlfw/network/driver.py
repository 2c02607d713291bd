"""Acting with any network, one vector step at a time: a driver holds what acting carries between
steps. A feed-forward network is the stateless case (``Driver``); a recurrent one carries each env's
state (``Stepping``). The collector, evaluation, ``rlfw.load(...).predict`` and export act through
``driver(net, n)`` and never ask which kind of network they have.

    out = drive(obs)          # the head's outputs for n observations (its ``acting`` forward)
    drive.before()            # what a step records before it acts ({} ; a recurrent net's state, episode starts)
    drive.after()             # and after it acts ({} ; the state after the step)
    drive.ended(done)         # the envs whose episode just ended start afresh at the next step
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from rlfw.network.head import Policy
from rlfw.network.head.contract import NetworkHead


class Delegating:
    """The head's ``mode``, ``distribution`` and ``open_actions``, for what stands in for it."""

    net: Any

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.net.mode(out)

    def distribution(self, out: dict[str, torch.Tensor]) -> Policy:
        return self.net.distribution(out)

    def open_actions(self, obs: torch.Tensor) -> torch.Tensor | None:
        return self.net.open_actions(obs)


class Driver(Delegating):
    """A feed-forward network acting for ``n`` envs: nothing is carried between steps."""

    inputs: tuple[str, ...] = ()  # what the policy reads beside obs (an exported file's other inputs)
    returns: tuple[str, ...] = ()  # which of its outputs the next step reads back (its other outputs)

    def __init__(self, net: NetworkHead, n: int, device: torch.device | None = None):
        self.net = net
        self._forward = net.for_acting  # runs only what acting reads

    def __call__(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return self._forward(obs)

    def before(self) -> dict[str, np.ndarray]:
        return {}

    def after(self) -> dict[str, np.ndarray]:
        return {}

    def ended(self, done: np.ndarray) -> None:
        """Nothing to forget."""

    @property
    def state(self) -> np.ndarray | None:
        """What is carried to the next step, per row (``predict`` returns it): nothing."""
        return None

    def start(self, state: np.ndarray | None, episode_start: torch.Tensor) -> None:
        """``predict``'s caller-held state; a feed-forward network ignores it, as SB3's ``predict`` does."""

    def initial(self, rows: int) -> tuple[torch.Tensor, ...]:
        """The other inputs (``inputs``) at an episode's first step, for ``rows`` rows."""
        return ()

    def state_dict(self) -> dict[str, torch.Tensor]:
        return {}

    def load_state_dict(self, state: dict[str, torch.Tensor] | None) -> None:
        """Nothing was saved."""


class Stepping(Driver):
    """A recurrent network (``initial_state(n)``, ``forward(obs, state, episode_start)``) acting for ``n``
    envs: ``_state`` is each env's memory, ``starts`` where the next step begins an episode (all, at
    first); the next step's forward zeroes the state where an episode starts."""

    inputs = ("state", "episode_start")
    returns = ("state",)

    def __init__(self, net: nn.Module, n: int, device: torch.device | None = None):
        self.net = net
        self._state = net.initial_state(n).to(device)  # type: ignore[operator]
        self.starts = torch.ones(n, dtype=torch.bool, device=device)

    def __call__(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        out = self.net(obs, self._state, self.starts)
        self._state = out.pop("state").float()  # float32 whatever the autocast: it goes to the replay
        self.starts = torch.zeros_like(self.starts)
        return out

    def before(self) -> dict[str, np.ndarray]:
        """Each env's state and whether its episode starts here: the rollout unrolls a column from its
        first state."""
        return {"state": self._state.numpy(force=True), "episode_start": self.starts.numpy(force=True)}

    def after(self) -> dict[str, np.ndarray]:
        """The state after the step: the rollout bootstraps V from it after episodes' and its last steps."""
        return {"next_state": self._state.numpy(force=True)}

    def ended(self, done: np.ndarray) -> None:
        self.starts = torch.as_tensor(done, device=self.starts.device)

    @property
    def state(self) -> np.ndarray:
        return self._state.numpy(force=True)

    def start(self, state: np.ndarray | None, episode_start: torch.Tensor) -> None:
        self.starts = episode_start.to(self.starts.device)
        if state is None:
            return
        given = torch.as_tensor(np.asarray(state), dtype=torch.float32, device=self._state.device)
        if given.shape != self._state.shape:
            raise ValueError(f"a state of shape {tuple(given.shape)}; this agent's is {tuple(self._state.shape)}")
        self._state = given

    def initial(self, rows: int) -> tuple[torch.Tensor, ...]:
        return self.net.initial_state(rows).cpu(), torch.ones(rows, dtype=torch.bool)

    def state_dict(self) -> dict[str, torch.Tensor]:
        return {"state": self._state.cpu(), "starts": self.starts.cpu()}

    def load_state_dict(self, state: dict[str, torch.Tensor] | None) -> None:
        assert state is not None, "a recurrent policy's checkpoint holds its state"
        self._state = state["state"].to(self._state.device)
        self.starts = state["starts"].to(self.starts.device)


def driver(net: Any, n: int, device: torch.device | None = None) -> Driver:
    """The driver that acts with ``net`` for ``n`` envs."""
    return (Stepping if net.recurrent else Driver)(net, n, device)
