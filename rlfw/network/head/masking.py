"""Closed actions masked out of a head's action scores: their logits or Q values set to the dtype's lowest
finite number, so a softmax gives them probability 0 (and the entropy and log pi of the open actions are
the masked policy's, Huang & Ontanon 2020), an argmax or a max never picks them, and no gradient reaches
them. Finite, not -inf: 0 * lowest is 0 (a terminal step's unused target), 0 * -inf is nan.

    out = masked(out, "q", open_actions)   # open_actions: [rows, actions] bools, True where open; None: all are
"""

from __future__ import annotations

import torch


def masked(out: dict[str, torch.Tensor], scores: str, open_actions: torch.Tensor | None) -> dict[str, torch.Tensor]:
    if open_actions is None:
        return out
    values = out[scores]
    return {**out, scores: values.masked_fill(~open_actions, torch.finfo(values.dtype).min)}
