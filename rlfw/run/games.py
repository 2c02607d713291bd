"""Evaluation of a turn-based game learned by self-play (``rlfw.env.agents``' ``turns``): greedy, the
policy takes one seat and an opponent every other, one game per eval env, each seat in turn; a seat's
result is the sign of its return (win, draw, loss). The opponents: a uniform random player over the open
actions, and the policy itself as it was at the evaluation before (its initial weights at the first).

    rates = results(envs, lambda: policy, {"random": lambda: random_player(rng)}, seed)
    # {"vs_random_player_0_win": 0.96, ..., "vs_random_score": 0.91}
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from rlfw.run.evaluate import Policy, eval_seed, evaluate, greedy, never

OUTCOMES = ("win", "draw", "loss")


def random_player(rng: np.random.Generator) -> Policy:
    """Uniform over each row's open actions (a waiting seat's action goes nowhere)."""

    def policy(obs: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        assert mask is not None  # a turn-based game's rows always carry masks
        return (rng.random(mask.shape) * mask).argmax(-1)

    return policy


def seated(seat: int, seats: int, player: Policy, opponent: Policy) -> Policy:
    """``player`` in each game's seat ``seat``, ``opponent`` in the rest (rows are copy-major: a game's
    seats side by side)."""

    def policy(obs: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        mine = np.arange(len(obs)) % seats == seat
        return np.where(mine, player(obs, mask), opponent(obs, mask))

    return policy


def results(
    envs,
    make_player: Callable[[], Policy],
    opponents: dict[str, Callable[[], Policy]],
    seed: int,
    stop: Callable[[], bool] = never,
) -> dict[str, float] | None:
    """Win, draw and loss rates of the player against each opponent from each seat
    (``vs_<opponent>_<seat>_<outcome>``), and its mean result against each (``vs_<opponent>_score``,
    +1 a win, -1 a loss); None if ``stop()`` cut it short. Players are made anew for each pass (a
    recurrent one's memory)."""
    seats: list[str] = envs.agents
    rates: dict[str, float] = {}
    for name, make_opponent in opponents.items():
        scores = []
        for seat, agent in enumerate(seats):
            played = evaluate(envs, seated(seat, len(seats), make_player(), make_opponent()), seed, stop)
            if played is None:
                return None
            score = np.sign(played[0][seat :: len(seats)])
            scores.append(score)
            for outcome, value in zip(OUTCOMES, (1, 0, -1), strict=True):
                rates[f"vs_{name}_{agent}_{outcome}"] = float(np.mean(score == value))
        rates[f"vs_{name}_score"] = float(np.mean(scores))
    return rates


def game_evaluation(module: Any, envs, stop: Callable[[], bool] = never) -> dict[str, float] | None:
    """One evaluation of ``module``'s network (as ``rlfw.run.evaluate.evaluation``): ``results`` against the
    random player and against its weights of the evaluation before (kept on the module, not in
    checkpoints: a resumed run's first opponent is itself). Its return is the mean result against the
    random player, from both seats."""
    net, device = module.net, module.device
    previous = copy.deepcopy(net)
    if getattr(module, "previous_weights", None) is not None:
        previous.load_state_dict(module.previous_weights)
    seed = eval_seed(module.cfg["seed"], len(module.progress.evals))
    rng = np.random.default_rng(seed)
    rates = results(
        envs,
        lambda: greedy(net, device),
        {"random": lambda: random_player(rng), "previous": lambda: greedy(previous, device)},
        seed,
        stop,
    )
    module.previous_weights = copy.deepcopy(net.state_dict())
    if rates is None:
        return None
    score = rates["vs_random_score"]
    decided = 2 * float(np.mean([rates[f"vs_random_{seat}_{o}"] for seat in envs.agents for o in ("win", "loss")]))
    return {
        "env_steps": module.progress.env_steps,
        "wall_seconds": module.wall_seconds(),
        "return_mean": score,
        "return_std": float(np.sqrt(max(decided - score**2, 0.0))),  # of results in {-1, 0, 1}: E[x^2] = P(decided)
        **rates,
    }
