"""GAE over each seat's own moves, for a turn-based game's rows (``rlfw.env.agents``' ``turns``).

A seat's row acts on its turn and waits on the others'. The steps it waits are not its steps: their
rewards (a game's result, which reaches the loser at the winner's move) add to its last move's, and
its next state is the one it moves from next, so

    delta_k = (r_k + the rewards while it waits) + gamma * (1 - terminated) * V(s_next move) - V(s_k)
    A_k     = delta_k + gamma * lam * (1 - done) * A_next move

over the moves k of each row. The critic is never asked the value of a waiting position (where the
same board would mean the other seat is to move); where the next move lies past the rollout (the
rollout ends while the row waits) or past a truncation, the bootstrap is the move's own V(s_k): no
signal rather than a guess. Waiting steps get advantage 0; the losses leave them out (``rlfw.batch.acting``).
"""

from __future__ import annotations

import numpy as np
import torch


def seat_gae(
    reward: torch.Tensor,
    value: torch.Tensor,
    next_value: torch.Tensor,
    terminated: torch.Tensor,
    truncated: torch.Tensor,
    acting: torch.Tensor,
    acting_last: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """Advantages for ``[T, rows]`` tensors. ``acting[t]``: the rows that moved at step t;
    ``acting_last``: the rows to move after the rollout's last step (whose ``next_value[-1]`` is then
    their next move's V)."""
    r, v = reward.numpy(force=True).astype(np.float64), value.numpy(force=True).astype(np.float64)
    term, done = terminated.numpy(force=True), (terminated | truncated).numpy(force=True)
    moved = acting.numpy(force=True)
    advantage = np.zeros_like(r)
    # what lies after step t for each row: its next move's V and advantage, and what it got while waiting
    boot = next_value[-1].numpy(force=True).astype(np.float64)
    known = acting_last.numpy(force=True).copy()  # whether boot is a move's V (else: bootstrap from V(s_k))
    running = np.zeros_like(boot)
    waited = np.zeros_like(boot)  # rewards while waiting, since this row's last move
    ended = np.zeros_like(known)  # the episode ended after the row's last move (while it waited)
    ended_terminal = np.zeros_like(known)
    for t in range(len(r) - 1, -1, -1):
        # an episode that ends at step t cuts what came after it
        cut = done[t]
        waited = np.where(cut, 0.0, waited)
        running = np.where(cut, 0.0, running)
        ended, ended_terminal = ended | cut, np.where(cut, term[t], ended_terminal)
        known &= ~(cut & ~term[t])  # a truncation's next state is a waiting one: no bootstrap from it
        got = r[t] + waited
        bootstrap = np.where(known, boot, v[t])
        delta = got + gamma * (1.0 - ended_terminal) * bootstrap - v[t]
        a = delta + gamma * lam * (1.0 - ended) * running
        advantage[t] = np.where(moved[t], a, 0.0)
        # a move resets the carry to itself; a waiting step adds its reward to the next-earlier move's
        waited = np.where(moved[t], 0.0, got)
        running = np.where(moved[t], a, running)
        boot = np.where(moved[t], v[t], boot)
        known = known | moved[t]
        ended = np.where(moved[t], False, ended)
        ended_terminal = np.where(moved[t], False, ended_terminal)
    return torch.from_numpy(advantage.astype(np.float32)).to(reward.device)
