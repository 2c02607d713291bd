"""Recurrent actor-critic head: encoder -> LSTM or GRU cell -> the policy layer and V(s), so that
pi(.|h_t) and V(h_t) read a memory h_t of the episode so far, not the observation alone.

    h_t           = cell(encoder(o_t), h_{t-1}),  h_{t-1} = 0 where an episode starts at t
    outputs of t  = policy layer(h_t), value(h_t)

The state is one tensor ``[B, S, hidden]`` per batch row: an LSTM's (h, c) or a GRU's h, for one
shared trunk or for the actor's and the critic's own (``shared=False``, SB3-contrib's default
``enable_critic_lstm``). ``initial_state(n)`` is zeros; ``forward(obs, state, episode_start)`` is one
step for a batch of envs; ``unroll`` runs the cell over ``[T, B]`` steps from each column's stored
state, as the collector did, for the learner (``rlfw.network.driver`` drives the steps, ``unrolled`` the
learner).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import torch
from torch import nn

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.driver import Delegating
from rlfw.network.encoder import Encoder
from rlfw.network.head import Policy
from rlfw.network.head.actor_critic import orthogonal
from rlfw.network.head.contract import NetworkHead
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
        after the last: one call of torch's nn.LSTM or nn.GRU over the steps (on a CPU torch fuses the
        LSTM's, not the GRU's)."""
        hx = state.transpose(0, 1).contiguous()  # [slots, B, hidden]
        if self.lstm:
            h, (h_n, c_n) = self.cell(x, (hx[:1], hx[1:]))
            return h, torch.cat((h_n, c_n)).transpose(0, 1)
        h, h_n = self.cell(x, hx)
        return h, h_n.transpose(0, 1)


class Pieces:
    """``[T, B]`` env columns cut where episodes start, so that the cell runs over all of them in one
    fused call: each piece (a column's steps from its first, or from an episode start, to the next
    start) is a column of a ``[L, P]`` layout padded with zeros after its end, and starts from its own
    state (the column's stored one, zeroed if an episode starts there; zeros after a cut). Padding
    only follows a piece's last step, so it changes none of the steps' outputs."""

    def __init__(self, episode_start: torch.Tensor):
        steps, columns = episode_start.shape
        cut = episode_start.clone()
        cut[0] = False  # a start at the first step zeroes the stored state instead
        within = cut.long().cumsum(0)  # [T, B]: the piece of each step, counted within its column
        count = within[-1] + 1
        self.first = count.cumsum(0) - count  # each column's first piece
        self.piece = self.first + within
        t = torch.arange(steps, device=cut.device)[:, None].expand(steps, columns)
        self.row = t - torch.where(cut, t, 0).cummax(0).values  # the step's place in its piece
        self.keep = (~episode_start[0]).float()[:, None, None]
        self.shape = (int(self.row.max()) + 1, int(count.sum()))  # one host sync
        self.whole = self.shape == (steps, columns)  # no episode starts after the first step: nothing to cut

    def pad(self, x: torch.Tensor) -> torch.Tensor:
        """``[T, B, F]`` -> ``[L, P, F]``."""
        if self.whole:
            return x
        padded = x.new_zeros(*self.shape, x.shape[-1])
        padded[self.row, self.piece] = x
        return padded

    def first_states(self, state: torch.Tensor) -> torch.Tensor:
        """Each piece's state before its first step, ``[P, S, hidden]``, from each column's ``[B, S, hidden]``."""
        state = state * self.keep.to(state.dtype)
        if self.whole:
            return state
        first = state.new_zeros(self.shape[1], *state.shape[1:])
        first[self.first] = state
        return first

    def unpad(self, h: torch.Tensor) -> torch.Tensor:
        """``[L, P, H]`` -> ``[T, B, H]``."""
        return h if self.whole else h[self.row, self.piece]


@register("head", "recurrent_actor_critic")
class RecurrentActorCritic(NetworkHead):
    """``cell``: lstm or gru, of ``hidden`` units. ``shared=True``: one trunk (encoder and cell) feeds
    the policy and the value (CleanRL's ppo_atari_lstm); ``shared=False``: each has its own.
    Orthogonal initialisation as ``actor_critic``'s (gains sqrt(2), 0.01, 1; the cell's 1)."""

    outputs = frozenset({"value"})  # and the policy layer's, per instance, as actor_critic's
    action_spaces = frozenset(SPACES)
    has_policy = True
    scores = "logits"  # its Categorical policies'
    recurrent = True  # trains on whole env columns (rlfw/config/fit.py refuses replays that sample steps)

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
        self.outputs = RecurrentActorCritic.outputs | self.policy.outputs
        orthogonal(self.policy, 0.01)
        orthogonal(self.value, 1.0)

    def initial_state(self, n: int) -> torch.Tensor:
        """The state before an episode's first step, for ``n`` rows: zeros ``[n, S, hidden]``."""
        return torch.zeros(n, self.slots * len(self.trunks), self.hidden, device=self.value.weight.device)

    def forward(self, obs: torch.Tensor, state: torch.Tensor, episode_start: torch.Tensor) -> dict[str, torch.Tensor]:
        """One step of ``B`` envs: the outputs for ``obs`` ``[B, ...]`` and the next ``state``."""
        keep = (~episode_start).to(state.dtype)[:, None, None]  # a new episode starts from zeros
        hs, after = [], []
        for trunk, x, s in zip(self._trunks(), self._features(obs, 1), state.split(self.slots, 1), strict=True):
            h, s = trunk.run(x, s * keep)
            hs.append(h[0])
            after.append(s)
        return {**self.open_to(self._heads(hs), obs), "state": torch.cat(after, 1)}

    def unroll(self, obs: torch.Tensor, state: torch.Tensor, episode_start: torch.Tensor) -> dict[str, torch.Tensor]:
        """``T`` steps of ``B`` env columns, for the learner: ``obs`` ``[T * B, ...]`` (time-major),
        ``state`` each column's before its first step, ``episode_start`` ``[T, B]``; the outputs are
        ``[T * B, ...]``, what ``forward`` gave stepping through them one at a time."""
        pieces = Pieces(episode_start)
        hs = []
        for trunk, x, s in zip(
            self._trunks(), self._features(obs, len(episode_start)), state.split(self.slots, 1), strict=True
        ):
            h, _ = trunk.run(pieces.pad(x), pieces.first_states(s))
            hs.append(pieces.unpad(h).flatten(0, 1))
        return self.open_to(self._heads(hs), obs)

    def _trunks(self) -> list[Trunk]:
        return cast(list[Trunk], list(self.trunks))

    def _features(self, obs: torch.Tensor, steps: int) -> list[torch.Tensor]:
        """Each trunk's encoder features, ``[steps, B, F]``, of observations normalized once."""
        if self.norm is not None:
            obs = self.norm(obs)
        return [trunk.encoder(obs).view(steps, -1, trunk.encoder.out_dim) for trunk in self._trunks()]

    def _heads(self, hs: list[torch.Tensor]) -> dict[str, torch.Tensor]:
        """The policy from the actor trunk's h_t, V from the critic's (the same trunk when shared)."""
        return {**self.policy(hs[0]), "value": self.value(hs[-1]).squeeze(-1)}

    def unrolled(self, batch: Batch) -> Unrolled:
        """The head over the batch's env columns, as a loss calls it: ``unroll`` from their ``state``."""
        return Unrolled(self, batch["state"], batch["episode_start"])

    def distribution(self, out: dict[str, torch.Tensor]) -> Policy:
        return self.policy.distribution(out)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        return self.policy.mode(out)


class Unrolled(Delegating):
    """``net`` over a batch's sequences: called on ``obs``, it unrolls from ``state`` with ``episode_start``."""

    def __init__(self, net: RecurrentActorCritic, state: torch.Tensor, episode_start: torch.Tensor):
        self.net, self.state, self.episode_start = net, state, episode_start

    def __call__(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.net.unroll(obs, self.state, self.episode_start)
