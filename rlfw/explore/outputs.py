"""What an explore rule acts on: the network's outputs, computed only when a rule reads them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import torch


class Outputs(Mapping):
    """The network's outputs for ``rows`` observations (``"q"``, ``"logits"``, ...), run on first read.

    A rule that acts at random for every sub-env (epsilon-greedy early in a run) never reads them, so
    the forward pass is skipped, as SB3's DQN skips it.
    """

    def __init__(self, forward: Callable[[], dict[str, torch.Tensor]], rows: int, num_actions: int | None):
        self._forward = forward
        self._out: dict[str, torch.Tensor] | None = None
        self.rows, self.num_actions = rows, num_actions

    def _computed(self) -> dict[str, torch.Tensor]:
        if self._out is None:
            self._out = self._forward()
        return self._out

    def __getitem__(self, key: str) -> torch.Tensor:
        return self._computed()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._computed())

    def __len__(self) -> int:
        return len(self._computed())

    @property
    def computed(self) -> bool:
        return self._out is not None
