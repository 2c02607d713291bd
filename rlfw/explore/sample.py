"""Sample from the policy pi(.|s); keeps log pi(a|s) and V(s) for on-policy losses."""

from __future__ import annotations

import torch

from rlfw.network.head.actor_critic import policy
from rlfw.registry import register


@register("explore", "sample")
class Sample:
    needs = frozenset({"logits", "value"})
    extras = frozenset({"logp", "value"})

    def act(self, outputs: dict[str, torch.Tensor], env_step: int) -> tuple[torch.Tensor, dict]:
        dist = policy(outputs)
        action = dist.sample()
        return action, {"logp": dist.log_prob(action), "value": outputs["value"]}
