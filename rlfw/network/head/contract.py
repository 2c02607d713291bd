"""What a head is and declares: the one place the fit checks (``rlfw/config/fit.py``), the env checks
(``rlfw/config/build.py``), the plugin listing and ``rlfw.testing`` read a head's capabilities from, as
losses declare theirs in ``rlfw/loss/contract.py``."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from rlfw.batch import Batch


def masked(out: dict[str, torch.Tensor], scores: str, open_actions: torch.Tensor) -> dict[str, torch.Tensor]:
    """``out`` with the closed actions' ``scores`` (logits, Q values) set to the dtype's lowest finite
    number, so a softmax gives them probability 0 (and the entropy and log pi of the open actions are the
    masked policy's, Huang & Ontanon 2020), an argmax or a max never picks them, and no gradient reaches
    them. Finite, not -inf: 0 * lowest is 0 (a terminal step's unused target), 0 * -inf is nan."""
    values = out[scores]
    return {**out, scores: values.masked_fill(~open_actions, torch.finfo(values.dtype).min)}


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
        """``out`` with its ``scores`` closed where ``obs`` closes actions (``masked``): what every forward
        of a head that takes masks returns; ``out`` itself where the observations carry none."""
        if self.mask_columns is None or self.scores is None:
            return out
        start, stop = self.mask_columns
        return masked(out, self.scores, obs[:, start:stop] > 0)

    def for_acting(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        """What acting reads, for a batch of observations: all of ``forward`` unless a head can skip part
        of it (``actor_critic``'s own-trunk critic)."""
        return self(obs)

    def unrolled(self, batch: Batch) -> Any:
        """What a loss calls as the network for ``batch``: the head itself; a recurrent head, unrolled over
        the batch's env columns from their stored states (so PPO's and A2C's loss files read it unchanged)."""
        return self

    def state_value(self, obs: torch.Tensor) -> torch.Tensor:
        """V(s) alone, ``[B]``, for a head that outputs ``value``; a head with its own critic trunk runs only it."""
        return self(obs)["value"]
