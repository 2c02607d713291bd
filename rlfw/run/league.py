"""Self-play against past versions (Bansal et al. 2018, "Emergent Complexity via Multi-Agent
Competition"): in a share ``past`` of a turn-based game's training games, one seat, drawn at random, is
played by a version of the policy kept earlier in the run, drawn uniformly from the last ``keep`` (one
kept every ``every`` env steps, the initial weights first). A policy that only meets its current self
specializes against its own play; past versions keep older ways of playing in its games.

A past version's moves are the env's, not the learner's: its seat's rows are stored as waiting (every
action closed), so the losses and GAE see only the live policy's moves (``rlfw.batch.acting``,
``rlfw.replay.turns``), and the game's result still reaches the live seat.

    action, stored = league.play(obs, action, mask)   # past seats' moves replace the live policy's
    next_stored = league.closed(next_mask)             # the rows past versions play, closed
    league.ended(done, env_steps)                      # keep a version when due; draw the next games' players
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from torch import nn

from rlfw.explore.act import act
from rlfw.explore.contract import ExploreRule
from rlfw.network.driver import driver

NONE = -1  # a game the live policy plays from every seat


class League:
    def __init__(
        self,
        net: nn.Module,
        explore: ExploreRule,
        seats: int,
        copies: int,
        past: float,
        keep: int,
        every: int,
        seed: int,
        device: torch.device | None = None,
    ):
        self.net, self.explore, self.seats, self.device = net, explore, seats, device
        self.past, self.keep, self.every = past, keep, every
        self.rng = np.random.default_rng(seed)
        self.versions: list[nn.Module] = []
        self.next_keep = 0  # env steps at which the next version is kept
        self.version = np.full(copies, NONE)  # each game's past version (an index into versions), or NONE
        self.seat = np.zeros(copies, dtype=np.int64)  # and the seat it plays
        self._keep_due(0)
        self._draw(np.ones(copies, dtype=bool))

    def rows(self) -> np.ndarray:
        """The rows past versions play (rows are copy-major: a game's seats side by side); set where the
        games draw their players, read three times a vector step."""
        return self.played

    def _seated(self) -> None:
        past = np.repeat(self.version != NONE, self.seats)
        self.played = past & (np.arange(len(past)) % self.seats == np.repeat(self.seat, self.seats))

    def play(
        self, obs: np.ndarray, action: np.ndarray, mask: np.ndarray, env_step: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``action`` with the past versions' moves in their rows (sampled by the run's explore rule, over
        the open actions), and the mask to store: theirs closed."""
        played = self.rows()
        if not played.any():
            return action, mask
        action = action.copy()
        by_row = np.repeat(self.version, self.seats)
        for v in np.unique(by_row[played]):
            rows = np.flatnonzero(played & (by_row == v))
            drive = driver(self.versions[v], len(rows), self.device)
            action[rows], _ = act(drive, self.explore, obs[rows], env_step, self.device, mask.shape[1], mask[rows])
        return action, self.closed(mask)

    def closed(self, mask: np.ndarray) -> np.ndarray:
        """``mask`` with every action closed in the rows past versions play."""
        return mask & ~self.rows()[:, None]

    def ended(self, done: np.ndarray, env_steps: int) -> None:
        """After a vector step: a version is kept when due, and the games that ended draw their players."""
        self._keep_due(env_steps)
        over = np.asarray(done).reshape(-1, self.seats).any(1)
        if over.any():
            self._draw(np.asarray(over))

    def _keep_due(self, env_steps: int) -> None:
        if env_steps < self.next_keep:
            return
        self.versions.append(copy.deepcopy(self.net).eval())
        self.next_keep = (env_steps // self.every + 1) * self.every
        if len(self.versions) > self.keep:  # the oldest goes; a game it was playing goes on with the next oldest
            self.versions.pop(0)
            self.version = np.where(self.version > 0, self.version - 1, self.version)

    def _draw(self, games: np.ndarray) -> None:
        n = int(games.sum())
        against = self.rng.random(n) < self.past
        self.version[games] = np.where(against, self.rng.integers(len(self.versions), size=n), NONE)
        self.seat[games] = self.rng.integers(self.seats, size=n)
        self._seated()

    def state_dict(self) -> dict[str, Any]:
        """The kept versions' weights, the games' players and the draws' generator: a resumed run goes on
        with the same opponents."""
        return {
            "versions": [v.state_dict() for v in self.versions],
            "next_keep": self.next_keep,
            "version": torch.from_numpy(self.version.copy()),
            "seat": torch.from_numpy(self.seat.copy()),
            "rng": self.rng.bit_generator.state,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.versions = []
        for weights in state["versions"]:
            version = copy.deepcopy(self.net).eval()
            version.load_state_dict(weights)
            self.versions.append(version)
        self.next_keep = state["next_keep"]
        self.version, self.seat = state["version"].numpy().copy(), state["seat"].numpy().copy()
        self.rng.bit_generator.state = state["rng"]
        self._seated()


def league(cfg: dict[str, Any], envs, net: nn.Module, explore: ExploreRule, seed: int, device) -> League | None:
    """The run's league (``cfg["league"]``), None where no training game is played against a past version."""
    given = cfg["league"]
    if given["past"] == 0:
        return None
    seats = envs.rows_per_env
    return League(
        net, explore, seats, envs.num_envs // seats, given["past"], given["keep"], given["every"], seed, device
    )
