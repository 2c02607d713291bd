"""What an explore rule acts on: the network's outputs, computed only when a rule reads them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch

from rlfw.network.head import Policy
from rlfw.network.head.masking import masked

_HALF = (torch.bfloat16, torch.float16)


class Outputs(Mapping):
    """The network's outputs for ``rows`` observations (``"q"``, ``"logits"``, ...), run on first read,
    and what its head makes of them: the greedy action (``mode``) and, for a policy head, the action
    distribution (``distribution``).

    A rule that acts at random for every sub-env (epsilon-greedy early in a run) never reads them, so
    the forward pass is skipped, as SB3's DQN skips it. With ``mask`` (the actions open in each row, on
    the CPU), the outputs are the masked ones: no rule reading them picks a closed action.
    """

    def __init__(
        self,
        net: Any,
        obs: Callable[[], torch.Tensor],
        rows: int,
        num_actions: int | None,
        mask: torch.Tensor | None = None,
    ):
        self.net, self._obs = net, obs
        self._out: dict[str, torch.Tensor] | None = None
        self.rows, self.num_actions, self.mask = rows, num_actions, mask

    def _computed(self) -> dict[str, torch.Tensor]:
        if self._out is None:
            out = self.net(self._obs())  # a driver (rlfw.network.driver) runs only what acting reads
            # Under trainer.precision=bf16-mixed or 16-mixed the forward runs in autocast: back to float32
            # for the explore rules, which hand values to numpy (it has no bfloat16) and the replay.
            out = {k: v.float() if v.dtype in _HALF else v for k, v in out.items()}
            self._out = masked(out, None if self.mask is None else self.mask.to(next(iter(out.values())).device))
        return self._out

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
