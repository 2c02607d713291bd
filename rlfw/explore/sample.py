"""Sample from the policy pi(.|s) (the head's ``distribution``); keeps log pi(a|s) and V(s) for
on-policy losses. A Gaussian or any other distribution samples itself; a Categorical, the common
case on the collector's hot path, is sampled here from its logits.

Inverse-CDF sampling: a ~ pi is the first action whose cumulative probability exceeds u ~ U[0, total),
one u per row from torch's generator (rlfw's one seeded stream), scaled by the unnormalised total so
that it never falls past the last possible action. A vector step of a few envs is sampled in plain
Python floats, more rows in numpy: each numpy call costs microseconds whatever its size, and the
dozen of them cost more than a Python loop over a few rows (docs/design.md, "Speed choices, and why")."""

from __future__ import annotations

import bisect
import math

import numpy as np
import torch
from torch.distributions import Categorical

from rlfw.explore.contract import ExploreRule
from rlfw.explore.outputs import Outputs
from rlfw.registry import register

PYTHON_ROWS = 16  # up to this many rows, Python floats


@register("explore", "sample")
class Sample(ExploreRule):
    needs = frozenset({"value"})
    needs_distribution = True
    extras = frozenset({"logp", "value"})

    def __init__(self):
        # The draws, refilled in place: uniform_ is the stream torch.rand draws from, without the cost of
        # making a tensor on the acting path.
        self.draws = torch.empty(0)

    def act(self, outputs: Outputs, env_step: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        pi = outputs.distribution()
        value = outputs["value"].numpy(force=True)
        if not isinstance(pi, Categorical):  # any other distribution samples itself
            sampled = pi.sample()
            return sampled.numpy(force=True), {"logp": pi.log_prob(sampled).numpy(force=True), "value": value}
        logits = pi.logits.float()
        if len(self.draws) != len(logits):
            with torch.inference_mode(False):  # a normal tensor even when made in inference mode: refilled in place
                self.draws = torch.empty(len(logits))
        u = self.draws.uniform_()
        by = by_rows if len(logits) <= PYTHON_ROWS else by_arrays
        action, logp = by(logits, u)
        return action, {"logp": logp, "value": value}


def by_rows(logits: torch.Tensor, u: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Row by row in Python floats: the few rows of a vector step."""
    actions, logps = [], []
    for row, draw in zip(logits.tolist(), u.tolist(), strict=True):
        top = max(row)
        cdf, total = [], 0.0
        for x in row:
            total += math.exp(x - top)
            cdf.append(total)
        a = bisect.bisect_right(cdf, draw * total)  # the first action whose cdf exceeds the draw
        actions.append(a)
        logps.append(row[a] - top - math.log(total))
    return np.array(actions, dtype=np.int64), np.array(logps, dtype=np.float32)


def by_arrays(logits: torch.Tensor, u: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """All rows at once in numpy: many rows."""
    scores = logits.numpy(force=True)  # force: on the CPU
    shifted = scores - scores.max(-1, keepdims=True)
    cdf = np.exp(shifted).cumsum(-1)  # unnormalised: the total is cdf[:, -1]
    action = (cdf <= u.numpy()[:, None] * cdf[:, -1:]).sum(-1)
    logp = shifted[np.arange(len(action)), action] - np.log(cdf[:, -1])
    return action, logp
