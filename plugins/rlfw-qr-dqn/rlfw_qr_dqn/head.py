"""N quantiles of the return per action; Q(s, a) is their mean."""

from collections.abc import Callable

import torch
from torch import nn

from rlfw import register
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.head.checks import require_discrete
from rlfw.network.head.contract import NetworkHead


@register("head", "quantile_q")
class QuantileQ(NetworkHead):
    outputs = frozenset({"q", "quantiles"})
    action_spaces = frozenset({"Discrete"})
    trained_through = frozenset({"quantiles"})  # a loss must read the quantiles, not only their mean
    scores = "q"  # the open actions an observation carries close their Q (and so their argmax)

    def __init__(self, spec: EnvSpec, make_encoder: Callable[[], nn.Module], n_quantiles: int = 10):
        super().__init__()
        require_discrete(spec, "quantile_q")
        require(n_quantiles >= 1, "network.head.n_quantiles", n_quantiles, "must be >= 1")
        self.num_actions, self.n_quantiles = spec.num_actions, n_quantiles
        self.encoder = make_encoder()
        self.quantiles = nn.Linear(self.encoder.out_dim, spec.num_actions * n_quantiles)

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        theta = self.quantiles(self.encoder(obs)).view(-1, self.num_actions, self.n_quantiles)
        return self.open_to({"q": theta.mean(2), "quantiles": theta}, obs)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        """The greedy action: argmax_a of the quantiles' mean."""
        return out["q"].argmax(dim=1)
