"""The greedy action: argmax of Q, or the policy's most likely action. Used for evaluation."""

from __future__ import annotations

import numpy as np
import torch

from rlfw.registry import register


@register("explore", "greedy")
class Greedy:
    needs: frozenset[str] = frozenset()  # either "q" or "logits"
    extras: frozenset[str] = frozenset()

    def act(self, outputs: dict[str, torch.Tensor], env_step: int) -> tuple[np.ndarray, dict]:
        scores = outputs["q"] if "q" in outputs else outputs["logits"]
        return scores.argmax(dim=1).numpy(force=True), {}  # force: from the device, if the network ran on one
