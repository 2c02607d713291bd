"""Heads: what the network outputs, and how those outputs become actions.

Every head is an ``nn.Module`` whose ``forward(obs)`` returns a dict of named tensors (its class's
``outputs``) and whose ``mode(outputs)`` is the greedy action; a policy head also gives the action
distribution, ``distribution(outputs)``. These protocols say so for type checkers and readers; a
head need not inherit from anything."""

from __future__ import annotations

from typing import Protocol

import torch
from torch.distributions import Distribution


class Head(Protocol):
    def __call__(self, obs: torch.Tensor) -> dict[str, torch.Tensor]: ...

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        """The greedy action of each row: argmax Q, or the policy's most likely action."""
        ...


class PolicyHead(Head, Protocol):
    def distribution(self, out: dict[str, torch.Tensor]) -> Distribution:
        """pi(.|s) for each row: ``sample``, ``log_prob`` and ``entropy`` per row."""
        ...
