"""The greedy action, as the network's head defines it (argmax Q, the policy's mode). Used for evaluation."""

from __future__ import annotations

import numpy as np

from rlfw.explore.act import Outputs
from rlfw.explore.contract import ExploreRule
from rlfw.registry import register


@register("explore", "greedy")
class Greedy(ExploreRule):
    needs: frozenset[str] = frozenset()  # every head says what its greedy action is (``mode``)
    extras: frozenset[str] = frozenset()

    def act(self, outputs: Outputs, env_step: int) -> tuple[np.ndarray, dict]:
        return outputs.mode().numpy(force=True), {}  # force: from the device, if the network ran on one


GREEDY = Greedy()  # evaluation's rule: the head's greedy action
