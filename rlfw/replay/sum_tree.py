"""A sum tree over priorities: set leaves and sample a leaf with probability p_i / sum p, vectorised.

Node 1 is the root, node i has children 2i and 2i+1, leaves are nodes ``[L, 2L)``. Kept in numpy:
updates touch a few indices per level, where numpy's per-call cost is a fraction of torch's. Every
update sums each parent from its children again (never adds a difference), so no rounding error builds
up and an empty subtree's sum stays exactly 0.
"""

from __future__ import annotations

import numpy as np
import torch

SMALL = 8  # leaves per update up to which a Python step per node costs less than numpy calls per level


class SumTree:
    def __init__(self, size: int):
        self.leaves = 1 << max(0, size - 1).bit_length()
        self.depth = self.leaves.bit_length() - 1  # levels above the leaves
        self.tree = np.zeros(2 * self.leaves, dtype=np.float64)

    @property
    def total(self) -> float:
        return float(self.tree[1])

    def get(self, index: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(self.tree[index.numpy() + self.leaves])

    def set(self, index: torch.Tensor, priority: torch.Tensor) -> None:
        """A few leaves (an env step's) walk up one at a time in Python, where numpy's cost per call
        would be most of the work; more (a batch's feedback) go up a level at a time in numpy."""
        leaf = index.numpy() + self.leaves
        if len(leaf) <= SMALL:
            self._set_each(leaf.tolist(), priority.tolist())
        else:
            self._set_levels(leaf, priority.numpy())

    def _set_each(self, leaves: list[int], priorities: list[float]) -> None:
        tree = self.tree
        for node, priority in zip(leaves, priorities, strict=True):
            tree[node] = priority
            node >>= 1
            while node:
                tree[node] = tree[2 * node] + tree[2 * node + 1]
                node >>= 1

    def _set_levels(self, node: np.ndarray, priority: np.ndarray) -> None:
        tree = self.tree
        tree[node] = priority
        for _ in range(self.depth):  # a node listed twice gets the same sum twice
            node = node >> 1
            left = node << 1
            tree[node] = tree[left] + tree[left + 1]

    def find(self, prefix: torch.Tensor) -> torch.Tensor:
        """Leaf indices where the running sum of priorities passes each ``prefix`` value."""
        left_of = prefix.double().numpy().copy()
        node = np.ones(len(left_of), dtype=np.int64)
        while node[0] < self.leaves:
            left = self.tree[2 * node]
            right_has_mass = self.tree[2 * node + 1] > 0  # never step into an empty subtree by rounding
            go_right = (left_of >= left) & right_has_mass
            left_of = np.where(go_right, left_of - left, left_of)
            node = 2 * node + go_right
        return torch.from_numpy(node - self.leaves)
