"""Q(s, a) for off-policy actor-critics: ``n`` independent critics over the observation and the action.

The critics are one batched MLP: each layer's weights are ``[n, in, out]``, so a layer of all n
critics is one ``baddbmm`` (one matmul kernel for the twin critics, not one per critic).

    h_0 = [s, a] for every critic;   h_k = relu(h_{k-1} W_k + b_k);   Q_i(s, a) = (h_L)_i

Hidden layers compute in bf16 where ``network.precision`` says they pay (the actor trunk's setting);
the output layer is fp32. ``forward(obs, action)`` gives ``[n, B]``. With ``frozen=True`` the critics
read their parameters detached: an actor's loss reads Q(s, pi(s)) that way, so its
gradient reaches the actor's action and never the critics' weights (their own loss trains those)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.normalize import Normalized
from rlfw.network.precision import Precision, precision_of


class Critics(nn.Module):
    def __init__(self, spec: EnvSpec, n: int, hidden: Sequence[int], actor_trunk: nn.Module):
        super().__init__()
        require(n >= 1, "network.head.n_critics", n, "critics Q_1..Q_n, >= 1")
        require(
            len(hidden) > 0 and all(h > 0 for h in hidden), "network.head.critic_hidden", list(hidden), "positive sizes"
        )
        size = math.prod(spec.obs_shape) + math.prod(spec.action_space.shape or (1,))
        # the actor's observation normalizer, when it has one: the critics read what the actor reads
        self.norm = actor_trunk.norm if isinstance(actor_trunk, Normalized) else None
        self.precision = precision_of(actor_trunk) or Precision("fp32")  # and compute as it does
        # the largest hidden layer's multiply-adds a row, all critics together (one baddbmm)
        self.macs = n * max(i * o for i, o in zip([size, *hidden[:-1]], hidden, strict=True))
        # n nn.Linear stacks made as separate critics would be (torch's initialisation, drawn in that
        # order), then stacked: [n, in, out] weights and [n, 1, out] biases per layer
        separate = [[nn.Linear(i, o) for i, o in zip([size, *hidden], [*hidden, 1], strict=True)] for _ in range(n)]
        self.weights = nn.ParameterList(
            nn.Parameter(torch.stack([c[k].weight.detach().T for c in separate])) for k in range(len(hidden) + 1)
        )
        self.biases = nn.ParameterList(
            nn.Parameter(torch.stack([c[k].bias.detach()[None] for c in separate])) for k in range(len(hidden) + 1)
        )

    def forward(self, obs: torch.Tensor, action: torch.Tensor, frozen: bool = False) -> torch.Tensor:
        x = self.norm(obs) if self.norm is not None else obs.float()
        x = torch.cat([x.flatten(1), action.float().flatten(1)], dim=1)
        *weights, w_out = [w.detach() for w in self.weights] if frozen else self.weights
        *biases, b_out = [b.detach() for b in self.biases] if frozen else self.biases
        h = x.expand(len(w_out), *x.shape)  # [n, B, in]: every critic reads the same input
        with self.precision.linear(x, self.macs):
            for w, b in zip(weights, biases, strict=True):
                h = torch.relu(torch.baddbmm(b, h, w))
        return torch.baddbmm(b_out, h.float(), w_out).squeeze(-1)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args, **kwargs) -> None:
        """Checkpoints written before the critics were batched held one nn.Sequential per critic
        (``nets.<i>.<2k>.weight``, ``[out, in]``): read as layer k of critic i."""
        old = prefix + "nets.0.0.weight"
        if old in state_dict:
            for k in range(len(self.weights)):
                for kind, name in (("weight", "weights"), ("bias", "biases")):
                    parts = [state_dict.pop(f"{prefix}nets.{i}.{2 * k}.{kind}") for i in range(len(self.weights[k]))]
                    state_dict[f"{prefix}{name}.{k}"] = torch.stack(
                        [p.T if kind == "weight" else p[None] for p in parts]
                    )
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)
