"""What a head is and declares: the one place the fit checks (``rlfw/config/check.py``), the env checks
(``rlfw/config/build.py``), the plugin listing and ``rlfw.testing`` read a head's capabilities from, as
losses declare theirs in ``rlfw/loss/contract.py``."""

from __future__ import annotations

import torch
from torch import nn


class NetworkHead(nn.Module):
    """``forward(obs) -> {name: tensor}`` (its ``outputs``) and ``mode(outputs)``, the greedy action of each
    row. A head subclasses this class and declares what it has; the methods a declaration promises are
    described in ``rlfw.network.head``'s protocols."""

    outputs: frozenset[str] = frozenset()  # the tensors forward returns ("q", "logits", "value", ...)
    action_spaces: frozenset[str] = frozenset()  # the action spaces it acts in: Discrete, MultiDiscrete, Box
    trained_through: frozenset[str] = frozenset()  # outputs a loss must read to train all of it (C51's log_pmf)
    has_policy: bool = False  # gives pi(.|s): ``distribution(outputs)``
    has_critics: bool = False  # gives critics Q(s, a): ``q_sa(obs, action, frozen)``, ``scale`` and ``bias``
    recurrent: bool = False  # steps with a state: ``initial_state``, ``forward(obs, state, episode_start)``, ``unroll``
    takes_mask: bool = False  # acts among an env's open actions: its action scores are "logits" or "q"

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:  # pragma: no cover
        raise NotImplementedError
