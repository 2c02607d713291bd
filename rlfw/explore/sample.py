"""Sample from the policy pi(.|s); keeps log pi(a|s) and V(s) for on-policy losses."""

from __future__ import annotations

import numpy as np
import torch

from rlfw.registry import register


@register("explore", "sample")
class Sample:
    needs = frozenset({"logits", "value"})
    extras = frozenset({"logp", "value"})

    def act(self, outputs: dict[str, torch.Tensor], env_step: int) -> tuple[torch.Tensor, dict]:
        # Inverse-CDF sampling: a ~ pi is the first action whose cumulative probability exceeds
        # u ~ U[0, total). The distribution policy(outputs).sample() draws from. In numpy, on the CPU
        # the actions go to anyway: for a vector step's few rows torch's per-op overhead is the cost.
        # Timed right after an 8-env Pong step on this 2-core CPU: 180 us, against 240 for the same
        # ops in torch (and ale-py's step takes about 3 ms).
        logits = outputs["logits"].float().numpy(force=True)  # force: detached, on the CPU
        shifted = logits - logits.max(-1, keepdims=True)
        cdf = np.exp(shifted).cumsum(-1)  # unnormalised: the total is cdf[:, -1]
        # torch's generator draws (one seeded stream for rlfw); scaled by the float total: never past the last action
        u = torch.rand(len(cdf), 1).numpy() * cdf[:, -1:]
        action = (cdf <= u).sum(-1)
        log_pi = shifted - np.log(cdf[:, -1:])
        logp = log_pi[np.arange(len(action)), action]
        return torch.from_numpy(action), {"logp": torch.from_numpy(logp), "value": outputs["value"]}
