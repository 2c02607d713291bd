"""Generalized Advantage Estimation (Schulman et al. 2016), over each row's own steps.

    delta_t = r_t + gamma * (1 - terminated_t) * V(s_{t+1}) - V(s_t)
    A_t     = delta_t + gamma * lam * (1 - done_t) * A_{t+1},   done_t = terminated_t or truncated_t

``next_value[t]`` is V of the true next state (the final observation when the episode ended), so a
truncated step still bootstraps from it while the advantage recursion stops at the episode end.

Where rows do not act at every step (``acting``: a turn-based game's seat acts on its turn, an agent that
left its episode acts no more), the recursion runs over each row's own moves: the steps it does not act
are not its steps, their rewards (a game's result, which reaches the loser at the winner's move) add to
its last move's, and its next state is the one it acts on next:

    delta_k = (r_k + the rewards until its next move) + gamma * (1 - terminated) * V(s_next move) - V(s_k)
    A_k     = delta_k + gamma * lam * (1 - done) * A_next move

The critic is never asked the value of a position the row does not act on, but where the episode is
truncated (V of its final observation) or the rollout ends while the row does not act (``acting_last``
false: the bootstrap is then the move's own V(s_k), no signal rather than a guess). Steps it does not act
get advantage 0; the losses leave them out (``rlfw.batch.acting``). With every row acting at every step
this is the recursion above.
"""

from __future__ import annotations

import numpy as np
import torch


def gae(
    reward: torch.Tensor,
    value: torch.Tensor,
    next_value: torch.Tensor,
    terminated: torch.Tensor,
    truncated: torch.Tensor,
    gamma: float,
    lam: float,
    acting: torch.Tensor | None = None,
    acting_last: torch.Tensor | None = None,
) -> torch.Tensor:
    """Advantages for ``[T, rows]`` tensors, computed backwards in time. ``acting[t]``: the rows that acted
    at step t, and ``acting_last`` those that act after the rollout's last step (None: every row, always)."""
    if acting is not None and acting_last is not None and not (bool(acting.all()) and bool(acting_last.all())):
        return _over_moves(reward, value, next_value, terminated, truncated, gamma, lam, acting, acting_last)
    not_terminal = 1.0 - terminated.float()
    not_done = 1.0 - (terminated | truncated).float()
    delta = (reward + gamma * not_terminal * next_value - value).numpy(force=True)
    decay = (gamma * lam * not_done).numpy(force=True)
    # the recursion row by row in numpy: a numpy op on a few envs costs a fraction of a torch op
    advantage = np.empty_like(delta)
    running = np.zeros_like(delta[0])
    for t in range(len(delta) - 1, -1, -1):
        running = delta[t] + decay[t] * running
        advantage[t] = running
    return torch.from_numpy(advantage).to(reward.device)


def _over_moves(reward, value, next_value, terminated, truncated, gamma, lam, acting, acting_last) -> torch.Tensor:
    """The recursion over each row's own moves (the module's second form), in numpy."""
    r, v = reward.numpy(force=True).astype(np.float64), value.numpy(force=True).astype(np.float64)
    after = next_value.numpy(force=True).astype(np.float64)
    term, trunc = terminated.numpy(force=True), truncated.numpy(force=True)
    moved = acting.numpy(force=True)
    advantage = np.zeros_like(r)
    # what lies after step t for each row: its next move's V and advantage, and what it got meanwhile
    boot = after[-1].copy()
    known = acting_last.numpy(force=True).copy()  # whether boot is a V to bootstrap from (else V(s_k))
    running = np.zeros_like(boot)
    waited = np.zeros_like(boot)  # rewards of the steps it did not act, since its last move
    ended = np.zeros_like(known)  # the episode ended after the row's last move
    ended_terminal = np.zeros_like(known)
    for t in range(len(r) - 1, -1, -1):
        cut = term[t] | trunc[t]  # an episode that ends at step t cuts what came after it
        waited = np.where(cut, 0.0, waited)
        running = np.where(cut, 0.0, running)
        ended, ended_terminal = ended | cut, np.where(cut, term[t], ended_terminal)
        boot = np.where(trunc[t], after[t], boot)  # a truncation bootstraps from the final observation's V
        known = known | trunc[t]
        got = r[t] + waited
        delta = got + gamma * (1.0 - ended_terminal) * np.where(known, boot, v[t]) - v[t]
        a = delta + gamma * lam * (1.0 - ended) * running
        advantage[t] = np.where(moved[t], a, 0.0)
        # a move resets the carry to itself; a step not acted adds its reward to the next-earlier move's
        waited = np.where(moved[t], 0.0, got)
        running = np.where(moved[t], a, running)
        boot = np.where(moved[t], v[t], boot)
        known = known | moved[t]
        ended = np.where(moved[t], False, ended)
        ended_terminal = np.where(moved[t], False, ended_terminal)
    return torch.from_numpy(advantage.astype(np.float32)).to(reward.device)
