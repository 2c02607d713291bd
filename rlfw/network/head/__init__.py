"""Heads: what the network outputs, and how those outputs become actions.

Every head is an ``nn.Module`` whose ``forward(obs)`` returns a dict of named tensors (its class's
``outputs``) and whose ``mode(outputs)`` is the greedy action; a policy head also gives the action
distribution, ``distribution(outputs)``; an off-policy actor-critic's head also has critics,
``q_sa(obs, action, frozen=False)`` with ``n`` values per row, and its action bounds as ``scale`` and
``bias``. These protocols say so for type checkers and readers; a head subclasses
``rlfw.network.head.contract.NetworkHead``, whose attributes declare which of them it has."""

from __future__ import annotations

from typing import Protocol

import torch


class Policy(Protocol):
    """pi(.|s) for a batch of rows (``rlfw.network.head.formulas``): sampled and scored by formula."""

    def sample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """An action per row and its log pi(a|s), from one draw of torch's generator."""
        ...

    def sample(self) -> torch.Tensor: ...

    def log_prob(self, action: torch.Tensor) -> torch.Tensor: ...

    def entropy(self) -> torch.Tensor: ...

    @property
    def mode(self) -> torch.Tensor: ...


class Head(Protocol):
    def __call__(self, obs: torch.Tensor) -> dict[str, torch.Tensor]: ...

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        """The greedy action of each row: argmax Q, or the policy's most likely action."""
        ...


class PolicyHead(Head, Protocol):
    def distribution(self, out: dict[str, torch.Tensor]) -> Policy:
        """pi(.|s) for each row: ``sample``, ``log_prob`` and ``entropy`` per row."""
        ...


class CriticHead(Head, Protocol):
    scale: torch.Tensor  # actions span bias - scale .. bias + scale
    bias: torch.Tensor

    def q_sa(self, obs: torch.Tensor, action: torch.Tensor, frozen: bool = False) -> torch.Tensor:
        """Q_1..Q_n(s, a), ``[n, B]``; ``frozen``: with the critics' parameters detached."""
        ...


class SquashedPolicy(Protocol):
    def rsample_with_log_prob(self) -> tuple[torch.Tensor, torch.Tensor]:
        """A reparameterized action in the bounds and its log pi(a|s), the change of variables included."""
        ...

    def log_prob(self, action: torch.Tensor) -> torch.Tensor:
        """log pi(a|s) of given actions in the bounds (a dataset's: IQL's actor weighs them)."""
        ...


class SoftActorCriticHead(CriticHead, Protocol):
    """SAC's head: critics, and a squashed stochastic actor."""

    def distribution(self, out: dict[str, torch.Tensor]) -> SquashedPolicy: ...
