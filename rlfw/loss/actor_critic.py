"""What A2C and PPO share: the policy read over a batch, the value loss and the entropy bonus. Each
loss file still shows its own policy term; the rows it averages over are those that acted
(``rlfw.batch.acting``: not a seat off its turn, not an agent that left)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from rlfw.batch import Batch, acting, mean
from rlfw.network.head import PolicyHead


@dataclass(frozen=True)
class PolicyRead:
    out: dict[str, torch.Tensor]  # the head's outputs for the batch's observations (value among them)
    logp: torch.Tensor  # log pi(a|s) of the actions taken, under the current weights
    entropy: torch.Tensor  # H[pi(.|s)], the mean over the rows that acted
    rows: torch.Tensor | None  # those rows as 1/0 weights; None: every row acted


def read_policy(batch: Batch, net: PolicyHead) -> PolicyRead:
    """pi(.|s) over the batch's observations (the head closes the actions they close), log pi(a|s) of
    the actions taken and the entropy over the rows that acted."""
    out = net(batch.obs)
    pi = net.distribution(out)
    rows = acting(batch)
    return PolicyRead(out, pi.log_prob(batch.action), mean(pi.entropy(), rows), rows)


def entropy_bonus(entropy: torch.Tensor, ent_coef: float) -> dict[str, torch.Tensor]:
    """-ent_coef * H as a loss term, and H for the logs."""
    return {"loss_entropy": -ent_coef * entropy, "entropy": entropy.detach()}


def value_loss(
    value: torch.Tensor,
    returns: torch.Tensor,
    old_value: torch.Tensor | None = None,
    clip: float | None = None,
    rows: torch.Tensor | None = None,
) -> torch.Tensor:
    """1/2 (V(s) - R)^2; with ``clip``, PPO's pessimistic clipped variant:
    1/2 max((V - R)^2, (V_old + clip(V - V_old, -clip, clip) - R)^2); averaged over the ``rows`` that
    acted (a row that did not act has no return of its own), all if None."""
    loss = (value - returns).square()
    if clip is not None and old_value is not None:
        with torch.no_grad():  # where it is the larger its V is outside the clip range: no gradient (as in PPO's term)
            clipped = (old_value + (value - old_value).clamp(-clip, clip) - returns).square()
        loss = torch.where(loss >= clipped, loss, clipped)
    return 0.5 * mean(loss, rows)
