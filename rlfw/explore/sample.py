"""Sample from the policy pi(.|s); keeps log pi(a|s) and V(s) for on-policy losses.

Inverse-CDF sampling: a ~ pi is the first action whose cumulative probability exceeds u ~ U[0, total),
one u per row from torch's generator (rlfw's one seeded stream), scaled by the unnormalised total so
that it never falls past the last possible action. A vector step of a few envs is sampled in plain
Python floats, more rows in numpy: each numpy call costs a few microseconds whatever its size, and a
dozen of them cost more than a Python loop over a few rows. Timed on this project's 2-core CPU, 6
actions: 8 rows 57 us in Python against 68 in numpy (right after an ale-py step: 234 against 325),
32 rows 76 against 68, 128 rows 348 against 70.
"""

from __future__ import annotations

import bisect
import math

import numpy as np
import torch

from rlfw.registry import register

PYTHON_ROWS = 16  # up to this many rows, Python floats


@register("explore", "sample")
class Sample:
    needs = frozenset({"logits", "value"})
    extras = frozenset({"logp", "value"})

    def act(self, outputs: dict[str, torch.Tensor], env_step: int) -> tuple[torch.Tensor, dict]:
        logits = outputs["logits"].float()
        u = torch.rand(len(logits))
        by = by_rows if len(logits) <= PYTHON_ROWS else by_arrays
        action, logp = by(logits, u)
        return action, {"logp": logp, "value": outputs["value"]}


def by_rows(logits: torch.Tensor, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Row by row in Python floats: the few rows of a vector step."""
    actions, logps = [], []
    for row, draw in zip(logits.tolist(), u.tolist()):
        top = max(row)
        cdf, total = [], 0.0
        for x in row:
            total += math.exp(x - top)
            cdf.append(total)
        a = bisect.bisect_right(cdf, draw * total)  # the first action whose cdf exceeds the draw
        actions.append(a)
        logps.append(row[a] - top - math.log(total))
    return torch.tensor(actions), torch.tensor(logps)


def by_arrays(logits: torch.Tensor, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """All rows at once in numpy: many rows."""
    logits = logits.numpy(force=True)  # force: on the CPU
    shifted = logits - logits.max(-1, keepdims=True)
    cdf = np.exp(shifted).cumsum(-1)  # unnormalised: the total is cdf[:, -1]
    action = (cdf <= u.numpy()[:, None] * cdf[:, -1:]).sum(-1)
    logp = shifted[np.arange(len(action)), action] - np.log(cdf[:, -1])
    return torch.from_numpy(action), torch.from_numpy(logp)
