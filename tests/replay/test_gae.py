import torch

from rlfw.replay.gae import gae


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
