"""A sum tree over priorities: set leaves and sample a leaf with probability p_i / sum p, vectorised.

Node 1 is the root, node i has children 2i and 2i+1, leaves are nodes ``[L, 2L)``. Kept in numpy:
updates touch a few indices per level, where numpy's per-call cost is a fraction of torch's.
"""

from __future__ import annotations

import numpy as np
import torch


class SumTree:
    def __init__(self, size: int):
        self.leaves = 1 << max(0, size - 1).bit_length()
        self.tree = np.zeros(2 * self.leaves, dtype=np.float64)

    @property
    def total(self) -> float:
        return float(self.tree[1])

    def get(self, index: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(self.tree[index.numpy() + self.leaves])

    def set(self, index: torch.Tensor, priority: torch.Tensor) -> None:
        node = index.numpy() + self.leaves
        self.tree[node] = priority.numpy()
        node = np.unique(node // 2)
        while node[0] >= 1:  # every node is at the same depth: go up one level at a time
            self.tree[node] = self.tree[2 * node] + self.tree[2 * node + 1]
            node = np.unique(node // 2)

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
