"""Self-play against past versions (``rlfw.run.league``): who plays which seat, what the replay keeps of
a past version's moves, the versions kept, and a resumed league."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

from rlfw.network import build_network
from rlfw.registry import build
from rlfw.run.collector import Collector
from rlfw.run.league import League

pytest.importorskip("pettingzoo")

CPU = torch.device("cpu")


@pytest.fixture(scope="module")
def game():
    return build("env", {"name": "pettingzoo", "id": "classic/connect_four-v3"}, "env")


def league_of(game, past: float, copies: int = 4, keep: int = 2, every: int = 100, seed: int = 0) -> League:
    net = build_network({"encoder": {"name": "mlp", "hidden": [16]}, "head": {"name": "actor_critic"}}, game.spec)
    return League(net, build("explore", {"name": "sample"}, "explore"), 2, copies, past, keep, every, seed, CPU)


class Keep:
    """A replay that keeps each step with the rows past versions played in it."""

    def __init__(self, league: League):
        self.league, self.steps, self.past = league, [], []

    def add(self, step):
        self.steps.append(step)
        self.past.append(self.league.rows())  # the step's players: the league draws anew only after it


def test_a_past_version_plays_one_seat_of_each_game_and_the_replay_stores_its_rows_as_waiting(game):
    league = league_of(game, past=1.0)
    assert league.rows().reshape(4, 2).sum(1).tolist() == [1, 1, 1, 1]  # one seat a game
    replay = Keep(league)
    Collector(game.make(4), league.net, league.explore, replay, 0, CPU, league=league).collect(120)
    ended = sum(int((s["terminated"] | s["truncated"]).any()) for s in replay.steps)
    assert ended > 0  # games ended, so both seats moved: the past versions' moves reached the env
    for step, past in zip(replay.steps, replay.past, strict=True):
        assert not step["mask"][past].any() and not step["next_mask"][past].any()
    moves = np.stack([s["mask"].any(-1) for s in replay.steps])
    assert 0.3 < moves.mean() * 2 < 0.7  # of each game's two rows, the live one moves every other step


def test_the_past_versions_moves_are_legal_and_their_rows_closed(game):
    league = league_of(game, past=1.0)
    envs = game.make(4)
    obs, info = envs.reset(seed=0)
    mask = info["action_mask"].copy()
    mask[:, 3] = False  # column 3 closed for everyone: a past version never picks it
    live = np.full(8, 3)
    for _ in range(20):
        action, stored = league.play(obs, live, mask, 0)
        past = league.rows()
        assert not stored[past].any() and (stored[~past] == mask[~past]).all()
        assert (action[~past] == 3).all() and (action[past & mask.any(-1)] != 3).all()


def test_a_version_is_kept_every_every_env_steps_and_the_oldest_leaves(game):
    league = league_of(game, past=0.5, keep=2, every=100)
    assert len(league.versions) == 1  # the initial weights
    with torch.no_grad():
        next(league.net.parameters()).add_(1.0)
    league.ended(np.zeros(8, dtype=bool), 99)
    assert len(league.versions) == 1
    league.ended(np.zeros(8, dtype=bool), 100)
    league.ended(np.zeros(8, dtype=bool), 200)
    assert len(league.versions) == 2  # keep=2: the initial weights left
    newest = next(league.versions[-1].parameters())
    assert torch.equal(newest, next(league.net.parameters())) and newest is not next(league.net.parameters())


def test_no_past_game_with_past_zero_and_some_with_a_half(game):
    assert not league_of(game, past=0.0, copies=64).rows().any()
    played = league_of(game, past=0.5, copies=64).rows().reshape(64, 2).any(1).mean()
    assert 0.3 < played < 0.7


def test_a_resumed_league_has_the_same_versions_and_draws_the_same_players(game):
    league = league_of(game, past=0.5, copies=16, every=10)
    for steps in (10, 20):
        with torch.no_grad():
            next(league.net.parameters()).add_(1.0)
        league.ended(np.ones(32, dtype=bool), steps)
    resumed = league_of(game, past=0.5, copies=16, every=10, seed=1)
    saved = io.BytesIO()
    torch.save(league.state_dict(), saved)  # as a checkpoint keeps it, and loads it: weights only
    saved.seek(0)
    resumed.load_state_dict(torch.load(saved, weights_only=True))
    for a, b in zip(league.versions, resumed.versions, strict=True):
        assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters(), strict=True))
    league.ended(np.ones(32, dtype=bool), 25)
    resumed.ended(np.ones(32, dtype=bool), 25)
    assert np.array_equal(league.rows(), resumed.rows()) and np.array_equal(league.version, resumed.version)
