"""Acting, in one function: the collector, evaluation, ``rlfw.load(...).predict`` and ``rlfw.testing``
all choose actions through ``act``.

    outputs         = net(obs)                    # one forward, run only if the rule reads it (the
                                                  # network normalizes obs once for actor and critic)
    actions, extras = rule.act(outputs, env_step) # argmax Q, epsilon-greedy, a ~ pi(.|s) with log pi(a|s)
                                                  # and V(s), mu(s) + noise, ...

numpy in (or torch), numpy out: the envs and the replay take numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from rlfw.explore.contract import ExploreRule
from rlfw.explore.greedy import Greedy
from rlfw.explore.outputs import Outputs

GREEDY = Greedy()  # evaluation's rule: the head's greedy action


def act(
    net: nn.Module | Any,  # or what acts for it (rlfw.network.driver: a head's acting forward, a recurrent state)
    rule: ExploreRule,
    obs: np.ndarray | torch.Tensor,
    env_step: int = 0,
    device: torch.device | None = None,
    num_actions: int | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The actions ``rule`` takes for a batch of observations ``env_step`` steps into a run, and what the
    replay records with them. ``device``: the network's; ``num_actions``: a Discrete space's size, for
    rules that draw random actions."""
    tensor: torch.Tensor | None = None

    def observations() -> torch.Tensor:  # made once, when a rule first reads the outputs or draws at random
        nonlocal tensor
        tensor = torch.as_tensor(obs, device=device) if tensor is None else tensor
        return tensor

    return rule.act(Outputs(net, observations, len(obs), num_actions), env_step)
