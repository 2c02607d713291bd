"""Sample from the policy pi(.|s); keeps log pi(a|s) and V(s) for on-policy losses."""

from __future__ import annotations

import torch

from rlfw.registry import register


@register("explore", "sample")
class Sample:
    needs = frozenset({"logits", "value"})
    extras = frozenset({"logp", "value"})

    def act(self, outputs: dict[str, torch.Tensor], env_step: int) -> tuple[torch.Tensor, dict]:
        # Inverse-CDF sampling: a ~ pi is the first action whose cumulative probability exceeds
        # u ~ U[0, total). The distribution policy(outputs).sample() draws from, in a few tiny ops:
        # 0.19 ms -> 0.13 ms a vector step of 8 envs on this 2-core CPU (torch.multinomial alone took 0.1 ms).
        log_pi = outputs["logits"].log_softmax(-1)
        cdf = log_pi.exp().cumsum(-1)
        u = torch.rand(len(cdf), 1, device=cdf.device) * cdf[:, -1:]  # scaled by the float total: never past the last action
        action = (cdf <= u).sum(-1)
        return action, {"logp": log_pi.gather(-1, action[:, None]).squeeze(-1), "value": outputs["value"]}
