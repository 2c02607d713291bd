"""Recurrent actor-critic head: encoder -> LSTM or GRU cell -> the policy layer and V(s), so that
pi(.|h_t) and V(h_t) read a memory h_t of the episode so far, not the observation alone.

    h_t           = cell(encoder(o_t), h_{t-1}),  h_{t-1} = 0 where an episode starts at t
    outputs of t  = policy layer(h_t), value(h_t)

The state is one tensor ``[B, S, hidden]`` per batch row: an LSTM's (h, c) or a GRU's h, for one
shared trunk or for the actor's and the critic's own (``shared=False``, SB3-contrib's default
``enable_critic_lstm``). ``initial_state(n)`` is zeros; ``forward(obs, state, episode_start)`` is one
step for a batch of envs; ``unroll`` runs the cell over ``[T, B]`` steps from each column's stored
state, as the collector did, for the learner (rlfw.network.memory drives both).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import cast

import torch
from torch import nn
from torch.distributions import Distribution

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.encoder import Encoder
from rlfw.network.head.actor_critic import orthogonal
from rlfw.network.head.policy import SPACES, policy_layer
from rlfw.network.normalize import shared_norm
from rlfw.registry import register

CELLS = {"lstm": nn.LSTM, "gru": nn.GRU}


class Trunk(nn.Module):
    """An encoder and a cell: features of o_t, then h_t from them and the previous state."""

    def __init__(self, encoder: Encoder, cell: str, hidden: int):
        super().__init__()
        self.encoder, self.lstm = encoder, cell == "lstm"
        self.cell = CELLS[cell](encoder.out_dim, hidden)
        orthogonal(encoder, math.sqrt(2))
        for name, param in self.cell.named_parameters():  # CleanRL's ppo_atari_lstm: orthogonal, zero biases
            nn.init.orthogonal_(param, 1.0) if name.startswith("weight") else nn.init.zeros_(param)

    def run(self, x: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """h_t of each step of ``x`` ``[T, B, F]`` from ``state`` ``[B, slots, hidden]``, and the state
        after the last: one call of torch's fused LSTM (GRU) over the steps."""
        hx = state.transpose(0, 1).contiguous()  # [slots, B, hidden]
        if self.lstm:
            h, (h_n, c_n) = self.cell(x, (hx[:1], hx[1:]))
            return h, torch.cat((h_n, c_n)).transpose(0, 1)
        h, h_n = self.cell(x, hx)
        return h, h_n.transpose(0, 1)


@register("head", "recurrent_actor_critic")
class RecurrentActorCritic(nn.Module):
    """``cell``: lstm or gru, of ``hidden`` units. ``shared=True``: one trunk (encoder and cell) feeds
    the policy and the value (CleanRL's ppo_atari_lstm); ``shared=False``: each has its own.
    Orthogonal initialisation as ``actor_critic``'s (gains sqrt(2), 0.01, 1; the cell's 1)."""

    outputs = frozenset({"value"})  # and the policy layer's, per instance, as actor_critic's
    action_spaces = frozenset(SPACES)
    recurrent = True  # trains on whole env columns (rlfw/config/check.py refuses replays that sample steps)

    def __init__(
        self,
        spec: EnvSpec,
        make_encoder: Callable[[], Encoder],
        cell: str = "lstm",
        hidden: int = 64,
        shared: bool = False,
        log_std_init: float = 0.0,
    ):
        super().__init__()
        require(cell in CELLS, "network.head.cell", cell, f"one of {', '.join(CELLS)}")
        require(hidden >= 1, "network.head.hidden", hidden, "must be >= 1")
        self.norm, encoders = shared_norm([make_encoder() for _ in range(1 if shared else 2)])
        self.trunks = nn.ModuleList(Trunk(encoder, cell, hidden) for encoder in encoders)
        self.hidden, self.slots = hidden, 2 if cell == "lstm" else 1  # rows of a trunk's state: (h, c), or h
        self.policy = policy_layer(spec, hidden, log_std_init, "recurrent_actor_critic")
        self.value = nn.Linear(hidden, 1)
        self.outputs = RecurrentActorCritic.outputs | self.policy.outputs  # type: ignore[operator]
        orthogonal(self.policy, 0.01)
        orthogonal(self.value, 1.0)

    def initial_state(self, n: int) -> torch.Tensor:
        """The state before an episode's first step, for ``n`` rows: zeros ``[n, S, hidden]``."""
        return torch.zeros(n, self.slots * len(self.trunks), self.hidden, device=self.value.weight.device)

    def forward(self, obs: torch.Tensor, state: torch.Tensor, episode_start: torch.Tensor) -> dict[str, torch.Tensor]:
        """One step of ``B`` envs: the outputs for ``obs`` ``[B, ...]`` and the next ``state``."""
        outputs = self._run(obs, state, episode_start[None], [0, 1])
        outputs["state"] = outputs.pop("final_state")
        return outputs

    def unroll(self, obs: torch.Tensor, state: torch.Tensor, episode_start: torch.Tensor) -> dict[str, torch.Tensor]:
        """``T`` steps of ``B`` env columns: ``obs`` ``[T * B, ...]`` (time-major), ``state`` each column's
        before its first step, ``episode_start`` ``[T, B]``. The outputs are ``[T * B, ...]``, and
        ``final_state`` the state after the last step."""
        # The cell runs fused over the stretches of steps where no episode starts (one host sync finds them)
        starts = episode_start.any(1).nonzero().flatten().tolist()
        return self._run(obs, state, episode_start, [0, *(t for t in starts if t > 0), len(episode_start)])

    def _run(
        self, obs: torch.Tensor, state: torch.Tensor, episode_start: torch.Tensor, bounds: list[int]
    ) -> dict[str, torch.Tensor]:
        """``unroll`` over the stretches between ``bounds``; at a stretch's first step the states of the
        columns starting an episode are zeroed."""
        if self.norm is not None:
            obs = self.norm(obs)
        steps, trunks = episode_start.shape[0], cast(list[Trunk], list(self.trunks))
        features = [trunk.encoder(obs).view(steps, -1, trunk.encoder.out_dim) for trunk in trunks]
        states = list(state.split(self.slots, dim=1))
        seen: list[list[torch.Tensor]] = [[] for _ in trunks]  # h_t of each stretch, per trunk
        for first, end in itertools.pairwise(bounds):
            keep = (~episode_start[first]).to(state.dtype)[:, None, None]
            for i, trunk in enumerate(trunks):
                h, states[i] = trunk.run(features[i][first:end], states[i] * keep)
                seen[i].append(h)
        actor, critic = (torch.cat(hs).flatten(0, 1) for hs in (seen[0], seen[-1]))  # [T * B, hidden]
        return {**self.policy(actor), "value": self.value(critic).squeeze(-1), "final_state": torch.cat(states, 1)}

    def distribution(self, out: dict[str, torch.Tensor]) -> Distribution:
        return self.policy.distribution(out)  # type: ignore[operator]

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.policy.mode(out)  # type: ignore[operator]
