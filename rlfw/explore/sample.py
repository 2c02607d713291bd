"""Sample from the policy pi(.|s) (the head's ``distribution``), keeping log pi(a|s) for on-policy
losses, and V(s) where the head computed it while acting (a shared trunk; a recurrent one). A head with
its own critic trunk acts without it: the rollout computes V(s) for all its steps in one forward."""

from __future__ import annotations

import numpy as np

from rlfw.explore.act import Outputs
from rlfw.explore.contract import ExploreRule
from rlfw.registry import register


@register("explore", "sample")
class Sample(ExploreRule):
    needs: frozenset[str] = frozenset()
    needs_distribution = True
    extras = frozenset({"logp"})  # and "value", when the acting forward gave it

    def act(self, outputs: Outputs, env_step: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        action, logp = outputs.distribution().sample_with_log_prob()
        extras = {"logp": logp.numpy(force=True)}
        if "value" in outputs:
            extras["value"] = outputs["value"].numpy(force=True)
        return action.numpy(force=True), extras
