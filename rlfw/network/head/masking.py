"""Invalid actions masked out of a head's outputs: their logits and Q values set to the dtype's lowest
finite number, so a softmax gives them probability 0 (and the entropy and log pi of the open actions are
the masked policy's, Huang & Ontanon 2020), an argmax or a max never picks them, and no gradient reaches
them. Finite, not -inf: 0 * lowest is 0 (a terminal step's unused target), 0 * -inf is nan.

    out = masked(net(obs), mask)   # mask: [rows, actions] bools, True where an action is open; None: all are
"""

from __future__ import annotations

import torch

MASKED = ("logits", "q")  # a policy's scores (a MultiDiscrete's concatenated), a Q head's values


def masked(out: dict[str, torch.Tensor], mask: torch.Tensor | None) -> dict[str, torch.Tensor]:
    if mask is None:
        return out
    closed = ~mask.bool()
    return {k: v.masked_fill(closed, torch.finfo(v.dtype).min) if k in MASKED else v for k, v in out.items()}
