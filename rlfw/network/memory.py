"""How a recurrent head (``initial_state``, ``forward(obs, state, episode_start)``, ``unroll``) is
driven, so that acting and learning look like a feed-forward head's to the explore rules and the losses.

    rlfw.network.driver  acting: one step of n envs at a time, keeping each env's state between calls
    unrolled(net, batch) learning: the batch's env columns replayed from their stored states, outputs
                         flattened to the batch's rows, so PPO's and A2C's loss files read them unchanged
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from rlfw.batch import Batch
from rlfw.network.head import Policy


class Delegating:
    """The head's ``mode``, ``distribution`` and ``open_actions``, for what stands in for the network."""

    net: Any

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.net.mode(out)

    def open_actions(self, obs: torch.Tensor) -> torch.Tensor | None:
        return self.net.open_actions(obs)

    def distribution(self, out: dict[str, torch.Tensor]) -> Policy:
        return self.net.distribution(out)


class Unrolled(Delegating):
    """``net`` over the batch's sequences: called on ``obs``, it unrolls from ``state`` with ``episode_start``."""

    def __init__(self, net: nn.Module, state: torch.Tensor, episode_start: torch.Tensor):
        self.net, self.state, self.episode_start = net, state, episode_start

    def __call__(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.net.unroll(obs, self.state, self.episode_start)


def unrolled(net: nn.Module, batch: Batch) -> Any:
    """What a loss calls as the network for ``batch``: ``net`` itself, or for a batch of env columns
    (it holds ``state``), ``net`` unrolled over them."""
    return Unrolled(net, batch["state"], batch["episode_start"]) if "state" in batch else net
