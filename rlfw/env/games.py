"""How a turn-based game learned by self-play is measured (``EnvSpec.evaluation == "games"``): the
policy takes one seat and an opponent every other, one game per env copy, each seat in turn; a seat's
result is the sign of its return (win, draw, loss). The run's evaluation (``rlfw.run.evaluate``) hands in
how to play a set of episodes and the players.

    rates = results(envs, spec.agents, play, lambda: policy, {"random": lambda: random_player(rng, spec)}, seed)
    # {"vs_random_player_0_win": 0.96, ..., "vs_random_score": 0.91}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from rlfw.env.spec import EnvSpec

OUTCOMES = ("win", "draw", "loss")
Player = Callable[[np.ndarray], np.ndarray]  # a batch of observations -> their actions
# plays one episode in each of envs' sub-envs with a player, from a seed: (returns, lengths), or None if stopped
Play = Callable[[Any, Player, int], tuple[np.ndarray, np.ndarray] | None]


def random_player(rng: np.random.Generator, spec: EnvSpec) -> Player:
    """Uniform over each row's open actions (its observation's ``action_mask`` part)."""
    mask = spec.mask
    assert mask is not None, "a turn-based game's observations carry their open actions"

    def player(obs: np.ndarray) -> np.ndarray:
        open_actions = obs[:, mask.start : mask.start + mask.size] > 0
        return (rng.random(open_actions.shape) * open_actions).argmax(-1)

    return player


def seated(seat: int, seats: int, player: Player, opponent: Player) -> Player:
    """``player`` in each game's seat ``seat``, ``opponent`` in the rest (rows are copy-major: a game's
    seats side by side)."""

    def both(obs: np.ndarray) -> np.ndarray:
        mine = np.arange(len(obs)) % seats == seat
        return np.where(mine, player(obs), opponent(obs))

    return both


def results(
    envs,
    seats: tuple[str, ...],
    play: Play,
    make_player: Callable[[], Player],
    opponents: dict[str, Callable[[], Player]],
    seed: int,
) -> dict[str, float] | None:
    """Win, draw and loss rates of the player against each opponent from each seat
    (``vs_<opponent>_<seat>_<outcome>``), and its mean result against each (``vs_<opponent>_score``,
    +1 a win, -1 a loss); None if a ``play`` was stopped. Players are made anew for each pass (a
    recurrent one's memory)."""
    rates: dict[str, float] = {}
    for name, make_opponent in opponents.items():
        scores = []
        for seat, agent in enumerate(seats):
            played = play(envs, seated(seat, len(seats), make_player(), make_opponent()), seed)
            if played is None:
                return None
            score = np.sign(played[0][seat :: len(seats)])
            scores.append(score)
            for outcome, value in zip(OUTCOMES, (1, 0, -1), strict=True):
                rates[f"vs_{name}_{agent}_{outcome}"] = float(np.mean(score == value))
        rates[f"vs_{name}_score"] = float(np.mean(scores))
    return rates


def summary(rates: dict[str, float], seats: tuple[str, ...]) -> dict[str, float]:
    """The evaluation's return: the mean result against the random player from both seats, and its std
    (of results in {-1, 0, 1}: E[x^2] = P(decided))."""
    score = rates["vs_random_score"]
    decided = 2 * float(np.mean([rates[f"vs_random_{seat}_{o}"] for seat in seats for o in ("win", "loss")]))
    return {"return_mean": score, "return_std": float(np.sqrt(max(decided - score**2, 0.0)))}
