"""What a loss head is and declares: the one place the fit checks (``rlfw/config/fit.py``), the
plugin listing and ``rlfw.testing`` read a loss's capabilities from."""

from __future__ import annotations

import torch
from torch import nn

from rlfw.batch import Batch


class LossHead(nn.Module):
    """``forward(batch, net, target) -> {"loss_*": ..., metrics}``: the update sums the ``loss_*`` terms
    and logs the rest (scalars). What the loss tells the replay about the batch goes apart, as signals
    (``batch.signal(name, value)``): ``td_error`` gives prioritized replay its priorities, ``stop_epochs``
    ends PPO's epochs early. A loss subclasses this class and overrides what it needs."""

    needs: frozenset[str] = frozenset()  # the network outputs it reads ("q", "value", ...)
    needs_distribution: bool = False  # pi(.|s) from the head (``net.distribution``)
    needs_critic: bool = False  # critics Q(s, a) from the head (``net.q_sa``)
    needs_batch: frozenset[str] = frozenset()  # the batch fields it reads
    needs_target: bool = False  # a target network (passed as ``target``)
    targets_with: str | None = None  # the target rule steps only on updates that have this term (TD3's actor)
    needs_joint: bool = False  # reads the agents' rows of a joint step together (a replay that is ``joint``)
    # leaves out of every term the rows that did not act (the batch's ``acting``, ``rlfw.batch.acting``): an
    # env whose rows do not all act at every step (``EnvSpec.idle``) trains only with such a loss
    reads_acting: bool = False
    signals: frozenset[str] = frozenset()  # the signals it gives (``td_error``, ``stop_epochs``)
    # the values a run may change as it trains (``schedule.loss.<name>``): plain numbers it reads at each call
    schedulable: frozenset[str] = frozenset()

    def forward(self, batch: Batch, net, target) -> dict[str, torch.Tensor]:  # pragma: no cover
        raise NotImplementedError
