"""A turn-based game's evaluation (``rlfw.run.games``): seats, opponents and their win/draw/loss rates."""

import numpy as np
import pytest

from rlfw.env.masks import KEY
from rlfw.env.pettingzoo import PettingZooEnv
from rlfw.run.games import random_player, results, seated

pytest.importorskip("pettingzoo")


def first_open(obs: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    assert mask is not None
    return mask.argmax(-1)


def test_the_random_player_picks_open_actions_only():
    mask = np.zeros((200, 9), dtype=bool)
    mask[:, [2, 5]] = True
    picked = random_player(np.random.default_rng(0))(np.zeros((200, 1)), mask)
    assert set(picked) == {2, 5}


def test_seated_gives_the_player_its_seat_s_rows():
    policy = seated(1, 2, lambda o, m: np.full(len(o), 7), lambda o, m: np.zeros(len(o), dtype=int))
    np.testing.assert_array_equal(policy(np.zeros((6, 1)), None), [0, 7, 0, 7, 0, 7])


def test_results_are_each_seat_s_rates_against_each_opponent():
    envs = PettingZooEnv("classic/tictactoe-v3").make(20)
    rng = np.random.default_rng(0)
    rates = results(envs, lambda: first_open, {"first": lambda: first_open, "random": lambda: random_player(rng)}, 0)
    assert rates is not None
    first, second = envs.agents  # tictactoe's player_1, player_2
    # lowest square first on both sides: the first mover takes 0, 2, 4, 6 and wins every game
    assert rates[f"vs_first_{first}_win"] == 1.0 and rates[f"vs_first_{second}_loss"] == 1.0
    assert rates["vs_first_score"] == 0.0
    for seat in (first, second):
        assert sum(rates[f"vs_random_{seat}_{o}"] for o in ("win", "draw", "loss")) == pytest.approx(1.0)
    assert 0 < rates[f"vs_random_{first}_win"] < 1  # random's games differ
    _, info = envs.reset(seed=0)
    assert info[KEY].shape == (40, 9)


def test_a_stop_cuts_the_games_short():
    envs = PettingZooEnv("classic/tictactoe-v3").make(2)
    assert results(envs, lambda: first_open, {"first": lambda: first_open}, 0, stop=lambda: True) is None
