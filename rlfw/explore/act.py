"""Acting, in one function: the collector, evaluation, ``rlfw.load(...).predict``, a league's past
versions and ``rlfw.testing`` all choose actions through ``act``, and an explore rule acts on ``Outputs``.

    outputs         = net(obs)                    # one forward, run only if the rule reads it (the
                                                  # network normalizes obs once for actor and critic)
    actions, extras = rule.act(outputs, env_step) # argmax Q, epsilon-greedy, a ~ pi(.|s) with log pi(a|s)
                                                  # and V(s), mu(s) + noise, ...

numpy in (or torch), numpy out: the envs and the replay take numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

import numpy as np
import torch

from rlfw.clock import Clock
from rlfw.network.driver import driver
from rlfw.network.head import Policy

_HALF = (torch.bfloat16, torch.float16)


class Outputs(Mapping):
    """The network's outputs for ``rows`` observations (``"q"``, ``"logits"``, ...), run on first read,
    and what its head makes of them: the greedy action (``mode``) and, for a policy head, the action
    distribution (``distribution``).

    A rule that acts at random for every sub-env (epsilon-greedy early in a run) never reads them, so
    the forward pass is skipped, as SB3's DQN skips it. Where observations carry their open actions, the
    head closes the others in its outputs, so no rule reading them picks a closed action; ``random`` draws
    among the open ones.
    """

    def __init__(self, net: Any, obs: Callable[[], torch.Tensor], rows: int, num_actions: int | None):
        self.net, self._obs = net, obs
        self._out: dict[str, torch.Tensor] | None = None
        self.rows, self.num_actions = rows, num_actions

    def _computed(self) -> dict[str, torch.Tensor]:
        if self._out is None:
            out = self.net(self._obs())  # a driver (rlfw.network.driver) runs only what acting reads
            # Under trainer.precision=bf16-mixed or 16-mixed the forward runs in autocast: back to float32
            # for the explore rules, which hand values to numpy (it has no bfloat16) and the replay.
            self._out = {k: v.float() if v.dtype in _HALF else v for k, v in out.items()}
        return self._out

    def random(self) -> torch.Tensor:
        """A uniform random action per row (a Discrete space's) among the actions its observation leaves
        open, on the CPU: the random draws stay on the CPU's generator, one stream on any device."""
        assert self.num_actions is not None, "random actions are drawn in a discrete action space"
        open_actions = self.net.open_actions(self._obs())
        if open_actions is None:
            return torch.randint(self.num_actions, (self.rows,))
        return torch.multinomial(open_actions.cpu().float(), 1).squeeze(1)

    def mode(self) -> torch.Tensor:
        """The head's greedy action for each row: argmax Q, or the policy's most likely action."""
        return self.net.mode(self._computed())

    def distribution(self) -> Policy:
        """The policy head's action distribution (one row per observation)."""
        return self.net.distribution(self._computed())

    def __getitem__(self, key: str) -> torch.Tensor:
        return self._computed()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._computed()  # Mapping's own raises and catches a KeyError for a missing key

    def __iter__(self) -> Iterator[str]:
        return iter(self._computed())

    def __len__(self) -> int:
        return len(self._computed())

    @property
    def computed(self) -> bool:
        return self._out is not None


class Rule(Protocol):
    """An explore rule, as ``act`` calls it (``rlfw.explore.contract.ExploreRule``)."""

    def act(self, outputs: Outputs, env_step: int) -> tuple[np.ndarray, dict[str, np.ndarray]]: ...


def act(
    net: Any,  # a head, or what acts for it (rlfw.network.driver: a head's acting forward, a recurrent state)
    rule: Rule,
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


def player(
    rule: Rule, clock: Clock, device: torch.device | None, num_actions: int | None
) -> Callable[[Any, np.ndarray], np.ndarray]:
    """Acting with any version of a network (a league's past one) for the rows it is given: ``rule``'s
    actions at the run's env step, with no memory carried between calls."""

    def play(net: Any, obs: np.ndarray) -> np.ndarray:
        return act(driver(net, len(obs), device), rule, obs, clock.env_steps, device, num_actions)[0]

    return play
