import torch

from rlfw.replay.gae import gae
from rlfw.replay.turns import seat_gae


def reference(reward, value, next_value, terminated, truncated, gamma, lam):
    """A plain per-env, per-step loop straight from the definition."""
    T, E = reward.shape
    adv = torch.zeros(T, E)
    for e in range(E):
        running = 0.0
        for t in reversed(range(T)):
            bootstrap = 0.0 if terminated[t, e] else gamma * next_value[t, e]
            delta = reward[t, e] + bootstrap - value[t, e]
            if terminated[t, e] or truncated[t, e]:
                running = 0.0
            running = delta + gamma * lam * running
            adv[t, e] = running
    return adv


def test_gae_matches_reference_loop_with_done_and_truncation():
    T, E = 37, 5
    reward, value, next_value = torch.randn(T, E), torch.randn(T, E), torch.randn(T, E)
    terminated = torch.rand(T, E) < 0.1
    truncated = (torch.rand(T, E) < 0.1) & ~terminated
    assert terminated.any() and truncated.any()
    for gamma, lam in [(0.99, 0.95), (0.9, 1.0), (0.5, 0.0)]:
        torch.testing.assert_close(
            gae(reward, value, next_value, terminated, truncated, gamma, lam),
            reference(reward, value, next_value, terminated, truncated, gamma, lam),
        )


def test_truncated_step_bootstraps_from_the_final_state_value():
    one = torch.ones(1, 1)
    adv = gae(one, 0 * one, 10 * one, torch.zeros(1, 1, dtype=bool), torch.ones(1, 1, dtype=bool), 0.9, 0.95)
    torch.testing.assert_close(adv, torch.full((1, 1), 1.0 + 0.9 * 10))
    adv = gae(one, 0 * one, 10 * one, torch.ones(1, 1, dtype=bool), torch.zeros(1, 1, dtype=bool), 0.9, 0.95)
    torch.testing.assert_close(adv, one)


def test_seat_gae_with_every_row_moving_every_step_is_gae():
    torch.manual_seed(0)
    T, n = 6, 3
    reward, value, next_value = torch.randn(T, n), torch.randn(T, n), torch.randn(T, n)
    terminated = torch.zeros(T, n, dtype=torch.bool)
    terminated[2, 1] = True
    next_value[:-1] = torch.where(terminated[:-1], next_value[:-1], value[1:])  # V(s_t+1) within an episode
    truncated = torch.zeros_like(terminated)
    moving = torch.ones(T, n, dtype=torch.bool)
    torch.testing.assert_close(
        seat_gae(reward, value, next_value, terminated, truncated, moving, moving[-1], 0.9, 0.8),
        gae(reward, value, next_value, terminated, truncated, 0.9, 0.8),
    )


def test_seat_gae_runs_over_each_seat_s_own_moves():
    """Two seats alternate; seat 1 wins at step 3, and seat 0's -1 arrives while it waits. Seat 0 moved at
    steps 0 and 2: A_2 = -1 - V_2 (the game ended before its next move), A_0 = 0 + g V_2 - V_0 + g l A_2."""
    g, lam = 0.9, 0.8
    value = torch.tensor([[0.5, 0.1], [0.2, 0.3], [0.4, 0.6], [0.7, 0.8]])
    reward = torch.tensor([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [-1.0, 1.0]])
    moving = torch.tensor([[True, False], [False, True], [True, False], [False, True]])
    terminated = torch.zeros(4, 2, dtype=torch.bool)
    terminated[3] = True
    next_value = torch.zeros(4, 2)  # unused: every bootstrap here is a move's own V or the game's end
    a = seat_gae(reward, value, next_value, terminated, torch.zeros_like(terminated), moving, moving[0], g, lam)
    a2 = -1.0 - 0.4
    a0 = g * 0.4 - 0.5 + g * lam * a2
    b3 = 1.0 - 0.8
    b1 = g * 0.8 - 0.3 + g * lam * b3
    torch.testing.assert_close(a, torch.tensor([[a0, 0.0], [0.0, b1], [a2, 0.0], [0.0, b3]]))


def test_seat_gae_takes_no_bootstrap_from_a_waiting_position():
    """The rollout ends with seat 0 to move and seat 1 waiting: seat 0's last move bootstraps from the V of
    the position it moves from next, seat 1's from its own V (no signal), not from the value the critic
    would give a waiting position."""
    value = torch.tensor([[0.5, 0.1], [0.2, 0.3]])
    moving = torch.tensor([[True, False], [False, True]])
    next_value = torch.full((2, 2), 9.0)  # V(s_T): seat 0's next move's, seat 1's waiting position's
    done = torch.zeros(2, 2, dtype=torch.bool)
    a = seat_gae(torch.zeros(2, 2), value, next_value, done, done, moving, torch.tensor([True, False]), 0.9, 1.0)
    torch.testing.assert_close(a, torch.tensor([[0.9 * 9.0 - 0.5, 0.0], [0.0, 0.9 * 0.3 - 0.3]]))
