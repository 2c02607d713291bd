"""Self-play against past versions (``rlfw.env.league``): a vector env around a game's seats, in which
past versions play some seats inside ``step`` and their rows come out as not acting; the versions kept,
and a resumed league."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

from rlfw.clock import Clock
from rlfw.env.league import League
from rlfw.env.spec import ACTING
from rlfw.network import build_network
from rlfw.registry import build

pytest.importorskip("pettingzoo")


@pytest.fixture(scope="module")
def game():
    return build("env", {"name": "pettingzoo", "id": "classic/connect_four-v3"}, "env")


def league_of(game, past: float, copies: int = 4, keep: int = 2, every: int = 100, seed: int = 0, play=None):
    """A league over ``copies`` games; ``play``: a version's moves (its first open column, by default)."""
    net = build_network({"encoder": {"name": "mlp", "hidden": [16]}, "head": {"name": "actor_critic"}}, game.spec)
    mask = game.spec.mask
    first_open = lambda version, obs: (obs[:, mask.start : mask.start + mask.size] > 0).argmax(-1)  # noqa: E731
    return League(game.make(copies), 2, net, play or first_open, Clock(), past, keep, every, seed)


def test_a_past_version_plays_one_seat_of_each_game_inside_the_step_and_its_rows_do_not_act(game):
    moved = []
    league = league_of(game, past=1.0, play=lambda version, obs: moved.append(len(obs)) or np.zeros(len(obs), int))
    assert league.played.reshape(4, 2).sum(1).tolist() == [1, 1, 1, 1]  # one seat a game
    _, info = league.reset(seed=0)
    ended = 0
    for _ in range(60):
        played = league.played.copy()
        assert not (info[ACTING] & played).any()  # the learner never acts for a past version's seat
        live = np.full(8, 6)  # the live policy's column 6 (ignored where a past version plays)
        _, _, terminated, truncated, info = league.step(live)
        ended += int((terminated | truncated).any())
    assert ended > 0 and sum(moved) > 0  # games ended: both seats moved, the past versions inside the step


def test_a_version_is_kept_every_every_env_steps_and_the_oldest_leaves(game):
    league = league_of(game, past=0.5, keep=2, every=100)
    league.reset(seed=0)
    assert len(league.versions) == 1  # the initial weights
    with torch.no_grad():
        next(league.net.parameters()).add_(1.0)
    for steps in (99, 100, 200):
        league.clock.env_steps = steps
        league.step(np.zeros(8, dtype=np.int64))
        assert len(league.versions) == (1 if steps < 100 else 2)  # keep=2: the initial weights left at 200
    newest = next(league.versions[-1].parameters())
    assert torch.equal(newest, next(league.net.parameters())) and newest is not next(league.net.parameters())


def test_no_past_game_with_past_zero_and_some_with_a_half(game):
    assert not league_of(game, past=0.0, copies=64).played.any()
    played = league_of(game, past=0.5, copies=64).played.reshape(64, 2).any(1).mean()
    assert 0.3 < played < 0.7


def test_a_resumed_league_has_the_same_versions_and_goes_on_with_the_same_games(game):
    league = league_of(game, past=0.5, copies=16, every=10)
    league.reset(seed=0)
    rng = np.random.default_rng(0)
    moves = [rng.integers(7, size=32) for _ in range(60)]
    for t, move in enumerate(moves[:30]):
        league.clock.env_steps = 16 * t
        with torch.no_grad():
            next(league.net.parameters()).add_(0.1)
        league.step(move)
    saved = io.BytesIO()
    torch.save(league.state_dict(), saved)  # as a checkpoint keeps it, and loads it: weights only
    saved.seek(0)
    resumed = league_of(game, past=0.5, copies=16, every=10, seed=1)
    resumed.reset(seed=5)
    resumed.load_state_dict(torch.load(saved, weights_only=True))
    resumed.clock.env_steps = league.clock.env_steps
    for a, b in zip(league.versions, resumed.versions, strict=True):
        assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    for move in moves[30:]:
        want, got = league.step(move), resumed.step(move)
        for x, y in zip(want[:4], got[:4], strict=True):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(want[4][ACTING], got[4][ACTING])
