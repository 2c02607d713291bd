"""C51's head (Bellemare et al. 2017): for each action a categorical distribution of the return over
``num_atoms`` fixed atoms z_1..z_N evenly spaced on [v_min, v_max]; Q(s, a) = sum_i z_i p_i(s, a).

    dueling=false   logits(s, a, i) = linear(h)
    dueling=true    logits(s, a, i) = V(s, i) + A(s, a, i) - mean_a' A(s, a', i)   (Rainbow's dueling)
    log p(s, a, .)  = log_softmax_i logits(s, a, i)

``noisy``: the output layers noisy ones (rlfw/network/noisy.py). Outputs ``log_pmf`` [B, A, N] (what
the c51 loss trains) and ``q`` [B, A] (what acting reads: greedy actions are argmax_a Q(s, a), the
expected return).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.encoder import Encoder
from rlfw.network.head.checks import require_discrete
from rlfw.network.head.contract import NetworkHead
from rlfw.network.noisy import output_layer
from rlfw.registry import register


@register("head", "categorical_q")
class CategoricalQ(NetworkHead):
    outputs = frozenset({"q", "log_pmf"})
    action_spaces = frozenset({"Discrete"})
    trained_through = frozenset({"log_pmf"})  # a loss must read the distribution, not only its mean
    scores = "q"  # a* of the target: argmax of the masked means; log_pmf is read for the action taken
    support: torch.Tensor

    def __init__(
        self,
        spec: EnvSpec,
        make_encoder: Callable[[], Encoder],
        num_atoms: int = 51,
        v_min: float = -10.0,
        v_max: float = 10.0,
        dueling: bool = False,
        noisy: bool = False,
        sigma0: float = 0.5,
    ):
        super().__init__()
        require_discrete(spec, "categorical_q")
        require(num_atoms >= 2, "network.head.num_atoms", num_atoms, "atoms of the return's support, >= 2")
        require(v_min < v_max, "network.head.v_min", v_min, f"the support's lowest atom, below v_max={v_max}")
        self.num_actions, self.num_atoms, self.v_min, self.v_max = spec.num_actions, num_atoms, v_min, v_max
        self.encoder = make_encoder()
        out = self.encoder.out_dim
        self.logits = output_layer(out, spec.num_actions * num_atoms, noisy, sigma0)  # A(s, a, .) when dueling
        self.value = output_layer(out, num_atoms, noisy, sigma0) if dueling else None
        self.register_buffer("support", torch.linspace(v_min, v_max, num_atoms))

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        h = self.encoder(obs)
        logits = self.logits(h).view(-1, self.num_actions, self.num_atoms)
        if self.value is not None:
            logits = self.value(h).unsqueeze(1) + logits - logits.mean(dim=1, keepdim=True)
        log_pmf = logits.log_softmax(dim=2)
        return self.open_to({"q": (log_pmf.exp() * self.support).sum(dim=2), "log_pmf": log_pmf}, obs)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        """The greedy action: argmax_a Q(s, a), the distribution's mean."""
        return out["q"].argmax(dim=1)
