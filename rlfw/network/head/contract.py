"""What a head is and declares: the one place the fit checks (``rlfw/config/check.py``), the env checks
(``rlfw/config/build.py``), the plugin listing and ``rlfw.testing`` read a head's capabilities from, as
losses declare theirs in ``rlfw/loss/contract.py``."""

from __future__ import annotations

import torch
from torch import nn

from rlfw.network.head.masking import masked


class NetworkHead(nn.Module):
    """``forward(obs) -> {name: tensor}`` (its ``outputs``) and ``mode(outputs)``, the greedy action of each
    row. A head subclasses this class and declares what it has; the methods a declaration promises are
    described in ``rlfw.network.head``'s protocols, and the optional ones have their defaults here."""

    outputs: frozenset[str] = frozenset()  # the tensors forward returns ("q", "logits", "value", ...)
    action_spaces: frozenset[str] = frozenset()  # the action spaces it acts in: Discrete, MultiDiscrete, Box
    trained_through: frozenset[str] = frozenset()  # outputs a loss must read to train all of it (C51's log_pmf)
    has_policy: bool = False  # gives pi(.|s): ``distribution(outputs)``
    has_critics: bool = False  # gives critics Q(s, a): ``q_sa(obs, action, frozen)``, ``scale`` and ``bias``
    recurrent: bool = False  # steps with a state: ``initial_state``, ``forward(obs, state, episode_start)``, ``unroll``
    # The output that scores each action ("q", "logits"): where an observation carries its open actions, the
    # head's forward closes the others there (``open_to``); None for a head that takes no masks.
    scores: str | None = None
    # Where a row's open actions lie in its observation (columns start, stop), from the env's spec; set by
    # ``rlfw.network.build_network``. None: the observations carry none.
    mask_columns: tuple[int, int] | None = None

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:  # pragma: no cover
        raise NotImplementedError

    def open_actions(self, obs: torch.Tensor) -> torch.Tensor | None:
        """Each row's open actions as bools (``[B, actions]``), from its observation; None where it carries none."""
        if self.mask_columns is None:
            return None
        start, stop = self.mask_columns
        return obs[:, start:stop] > 0

    def open_to(self, out: dict[str, torch.Tensor], obs: torch.Tensor) -> dict[str, torch.Tensor]:
        """``out`` with its ``scores`` closed where ``obs`` closes actions: what every forward returns."""
        return masked(out, self.scores, self.open_actions(obs)) if self.scores is not None else out

    def acting(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        """What acting reads, for a batch of observations: all of ``forward`` unless a head can skip part
        of it (``actor_critic``'s own-trunk critic)."""
        return self(obs)

    def state_value(self, obs: torch.Tensor) -> torch.Tensor:
        """V(s) alone, ``[B]``, for a head that outputs ``value``; a head with its own critic trunk runs only it."""
        return self(obs)["value"]
