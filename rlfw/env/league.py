"""Self-play against past versions (Bansal et al. 2018, "Emergent Complexity via Multi-Agent
Competition"), as a vector env around a turn-based game's seats: in a share ``past`` of the training
games, one seat, drawn at random, is played by a version of the policy kept earlier in the run, drawn
uniformly from the last ``keep`` (one kept every ``every`` env steps of the run's clock, the initial
weights first). A policy that only meets its current self specializes against its own play; past
versions keep older ways of playing in its games.

A past version's moves are the env's, not the learner's: they are chosen inside ``step`` (``play``: the
run's explore rule acting with that version), and its seat's rows come out as not acting
(``info["acting"]``), so the losses and GAE see only the live policy's moves while the game's result
still reaches the live seat. The kept versions, the games' players and the draws' generator are its
state (``state_dict``): a resumed run goes on with the same opponents.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from rlfw.clock import Clock
from rlfw.env.rows import RowsEnv
from rlfw.env.snapshot import restore, snapshot
from rlfw.env.spec import ACTING

NONE = -1  # a game the live policy plays from every seat
# a version's actions for a batch of its rows' observations
Play = Callable[[nn.Module, np.ndarray], np.ndarray]


class League(RowsEnv):
    """``envs``' games of ``seats`` rows each (copy-major), some seats played by past versions of ``net``."""

    def __init__(
        self,
        envs: gym.vector.VectorEnv,
        seats: int,
        net: nn.Module,
        play: Play,
        clock: Clock,
        past: float,
        keep: int,
        every: int,
        seed: int,
    ):
        self.envs, self.net, self.play, self.clock, self.seats = envs, net, play, clock, seats
        self.num_envs = envs.num_envs
        self.single_observation_space, self.single_action_space = (
            envs.single_observation_space,
            envs.single_action_space,
        )
        self.observation_space, self.action_space = envs.observation_space, envs.action_space
        self.metadata = envs.metadata
        self.past, self.keep, self.every = past, keep, every
        self.rng = np.random.default_rng(seed)
        self.versions: list[nn.Module] = []
        self.next_keep = 0  # env steps at which the next version is kept
        copies = envs.num_envs // seats
        self.version = np.full(copies, NONE)  # each game's past version (an index into versions), or NONE
        self.seat = np.zeros(copies, dtype=np.int64)  # and the seat it plays
        self.obs = np.zeros(0)
        self._keep_due()
        self._draw(np.ones(copies, dtype=bool))

    def _seated(self) -> None:
        """The rows past versions play (rows are copy-major: a game's seats side by side)."""
        past = np.repeat(self.version != NONE, self.seats)
        self.played = past & (np.arange(len(past)) % self.seats == np.repeat(self.seat, self.seats))

    def _out(self, obs: np.ndarray, info: dict) -> dict:
        """What the learner sees: the rows past versions play do not act."""
        self.obs = obs.copy()
        return {**info, ACTING: info[ACTING] & ~self.played}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.envs.reset(seed=seed, options=options)
        return obs, self._out(obs, info)

    def step(self, actions: np.ndarray):
        if self.played.any():
            actions = np.array(actions, copy=True)
            by_row = np.repeat(self.version, self.seats)
            for v in np.unique(by_row[self.played]):
                rows = np.flatnonzero(self.played & (by_row == v))
                actions[rows] = self.play(self.versions[v], self.obs[rows])
        obs, reward, terminated, truncated, info = self.envs.step(actions)
        self._keep_due()
        over = (terminated | truncated).reshape(-1, self.seats).any(1)
        if over.any():  # the games that ended draw their next players
            self._draw(over)
        return obs, reward, terminated, truncated, self._out(obs, info)

    def _keep_due(self) -> None:
        if self.clock.env_steps < self.next_keep:
            return
        self.versions.append(copy.deepcopy(self.net).eval())
        self.next_keep = (self.clock.env_steps // self.every + 1) * self.every
        if len(self.versions) > self.keep:  # the oldest goes; a game it was playing goes on with the next oldest
            self.versions.pop(0)
            self.version = np.where(self.version > 0, self.version - 1, self.version)

    def _draw(self, games: np.ndarray) -> None:
        n = int(games.sum())
        against = self.rng.random(n) < self.past
        self.version[games] = np.where(against, self.rng.integers(len(self.versions), size=n), NONE)
        self.seat[games] = self.rng.integers(self.seats, size=n)
        self._seated()

    def close(self, **kwargs: Any) -> None:
        self.envs.close()

    def state_dict(self) -> dict[str, Any]:
        """The games' own state (``rlfw.env.snapshot``), the kept versions' weights, the games' players, the
        draws' generator and the observation the versions act on next."""
        return {
            "envs": snapshot(self.envs),
            "versions": [v.state_dict() for v in self.versions],
            "next_keep": self.next_keep,
            "version": torch.from_numpy(self.version.copy()),
            "seat": torch.from_numpy(self.seat.copy()),
            "rng": self.rng.bit_generator.state,
            "obs": torch.from_numpy(self.obs.copy()),
        }

    def load_state_dict(self, saved: dict[str, Any]) -> None:
        restore(self.envs, saved["envs"])
        self.versions = []
        for weights in saved["versions"]:
            version = copy.deepcopy(self.net).eval()
            version.load_state_dict(weights)
            self.versions.append(version)
        self.next_keep = saved["next_keep"]
        self.version, self.seat = saved["version"].numpy().copy(), saved["seat"].numpy().copy()
        self.rng.bit_generator.state = saved["rng"]
        self.obs = saved["obs"].numpy().copy()
        self._seated()
