"""A turn-based game's measure (``rlfw.env.games``): seats, opponents and their win/draw/loss rates."""

import numpy as np
import pytest

from rlfw.env.games import random_player, results, seated
from rlfw.env.pettingzoo import PettingZooEnv
from rlfw.run.evaluate import evaluate

pytest.importorskip("pettingzoo")


def first_open(env: PettingZooEnv):
    mask = env.spec.mask
    return lambda obs: (obs[:, mask.start : mask.start + mask.size] > 0).argmax(-1)


def test_the_random_player_picks_open_actions_only():
    env = PettingZooEnv("classic/tictactoe-v3")
    mask = env.spec.mask
    obs = np.zeros((200, *env.spec.obs_shape), np.float32)
    obs[:, mask.start + 2], obs[:, mask.start + 5] = 1, 1
    picked = random_player(np.random.default_rng(0), env.spec)(obs)
    assert set(picked) == {2, 5}


def test_seated_gives_the_player_its_seat_s_rows():
    policy = seated(1, 2, lambda o: np.full(len(o), 7), lambda o: np.zeros(len(o), dtype=int))
    np.testing.assert_array_equal(policy(np.zeros((6, 1))), [0, 7, 0, 7, 0, 7])


def test_results_are_each_seat_s_rates_against_each_opponent():
    env = PettingZooEnv("classic/tictactoe-v3")
    envs, seats, rng = env.make(20), env.spec.agents, np.random.default_rng(0)
    first = lambda: first_open(env)  # noqa: E731
    rates = results(envs, seats, evaluate, first, {"first": first, "random": lambda: random_player(rng, env.spec)}, 0)
    assert rates is not None
    one, two = seats  # tictactoe's player_1, player_2
    # lowest square first on both sides: the first mover takes 0, 2, 4, 6 and wins every game
    assert rates[f"vs_first_{one}_win"] == 1.0 and rates[f"vs_first_{two}_loss"] == 1.0
    assert rates["vs_first_score"] == 0.0
    for seat in seats:
        assert sum(rates[f"vs_random_{seat}_{o}"] for o in ("win", "draw", "loss")) == pytest.approx(1.0)
    assert 0 < rates[f"vs_random_{one}_win"] < 1  # random's games differ


def test_a_stop_cuts_the_games_short():
    env = PettingZooEnv("classic/tictactoe-v3")
    first = lambda: first_open(env)  # noqa: E731
    play = lambda envs, player, seed: evaluate(envs, player, seed, stop=lambda: True)  # noqa: E731
    assert results(env.make(2), env.spec.agents, play, first, {"first": first}, 0) is None
