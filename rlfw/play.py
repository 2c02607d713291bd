"""``python -m rlfw.play <run folder or .ckpt> [which=best] [episodes=N] [seed=S] [deterministic=true]
[video=true] [render=human] [device=cpu]``: watch and evaluate a trained agent.

It plays one episode on each of ``episodes`` envs made as the run made its evaluation envs, and
prints the mean, std and IQM of their returns and lengths. By default the seed and the number of
episodes are the run's own for the evaluation of these weights, so it reproduces the run's figure.
``video=true`` writes ``play.mp4`` (one episode) into the run folder; ``render=human`` shows the
episodes in a window, one after another. A turn-based game's agent (``env=connect_four``) plays
``episodes`` games against a uniform random player from each seat, and prints its win, draw and loss rates.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

import numpy as np

from rlfw.agent.arguments import fail, parse
from rlfw.agent.load import Agent, load
from rlfw.env.games import OUTCOMES, random_player, results
from rlfw.errors import ConfigError
from rlfw.run.evaluate import evaluate
from rlfw.run.video import record


@dataclass
class Play:
    which: str = "best"
    episodes: int | None = None  # null: the run's eval.episodes
    seed: int | None = None  # null: the seed of the run's evaluation of these weights
    deterministic: bool = True
    video: bool = False
    render: str | None = None
    device: str = "cpu"


def play(agent: Agent, args: Play) -> tuple[np.ndarray, np.ndarray]:
    """Returns and lengths of ``args.episodes`` episodes."""
    episodes = args.episodes or agent.config["eval"]["episodes"]
    seed = agent.eval_seed() if args.seed is None else args.seed
    if args.render is None:
        result = evaluate(agent.make_env(episodes), agent.policy(args.deterministic), seed)
    else:  # one window, its episodes one after another, each with a fresh policy (a recurrent one's memory)
        make = agent.make_env
        results = [evaluate(make(1, args.render), agent.policy(args.deterministic), seed + i) for i in range(episodes)]
        result = np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results])  # type: ignore[index]
    assert result is not None  # nothing stops it
    return result


def games(agent: Agent, args: Play) -> list[str]:
    """A turn-based game's agent against a uniform random player, ``args.episodes`` games from each seat:
    one line of win, draw and loss rates a seat."""
    episodes = args.episodes or agent.config["eval"]["episodes"]
    seed = agent.eval_seed() if args.seed is None else args.seed
    envs, rng, seats = agent.make_env(episodes), np.random.default_rng(seed), agent.spec.agents
    opponents = {"random": lambda: random_player(rng, agent.spec)}
    rates = results(envs, seats, evaluate, lambda: agent.policy(args.deterministic), opponents, seed)
    assert rates is not None  # nothing stops it
    return [
        f"as {seat} against a random player: "
        + ", ".join(f"{outcome} {rates[f'vs_random_{seat}_{outcome}']:.0%}" for outcome in OUTCOMES)
        for seat in seats
    ]


def require_display(render: str) -> None:
    """A ``human`` window needs a display; on Linux without one, pygame draws to nothing and says nothing."""
    if (
        render == "human"
        and sys.platform.startswith("linux")
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    ):
        raise ConfigError(
            "render='human': no display here (DISPLAY and WAYLAND_DISPLAY are unset), so no window can open;"
            " video=true writes play.mp4 instead"
        )


def line(name: str, values: np.ndarray) -> str:
    from rliable.metrics import aggregate_iqm

    iqm = float(aggregate_iqm(values.astype(float)[:, None]))
    return f"{name}: mean {values.mean():.1f}, std {values.std():.1f}, IQM {iqm:.1f} (min {values.min():.1f}, max {values.max():.1f})"


def main(argv: list[str] | None = None) -> None:
    try:
        path, args = parse(sys.argv[1:] if argv is None else argv, Play)
        if args.episodes is not None and args.episodes < 1:
            raise ConfigError(f"episodes={args.episodes}: must be >= 1")
        agent = load(path, args.which, args.device)
        if (args.render is not None or args.video) and not agent.env.renders:
            name = agent.config["env"]["name"]
            raise ConfigError(f"render/video: env={name} cannot render frames yet; play without them evaluates the run")
        if args.render is not None:
            agent.env.render_env(args.render)[0].close()  # an env that cannot render so says it now
            require_display(args.render)
        if agent.spec.evaluation == "games":
            lines = games(agent, args)
        else:
            returns, lengths = play(agent, args)
    except ConfigError as err:
        fail("rlfw.play", err)
    how = "greedy" if args.deterministic else "as in training (not greedy)"
    if agent.spec.evaluation == "games":
        print(f"{agent.checkpoint} ({agent.env_steps:,} env steps) on {agent.spec.id}, {how}:", *lines, sep="\n")
        return
    print(f"{agent.checkpoint} ({agent.env_steps:,} env steps) on {agent.spec.id}: {len(returns)} episodes, {how}")
    print(line("return", returns))
    print(line("length", lengths))
    last = agent.evals[-1] if agent.evals else None
    if last is not None and last["env_steps"] == agent.env_steps:
        print(f"the run's own evaluation of these weights: {last['return_mean']:.1f} +- {last['return_std']:.1f}")
    if args.video:
        video = record(
            agent.env, agent.policy(args.deterministic), agent.checkpoint.parent.parent / "play.mp4", agent.eval_seed()
        )
        print(f"video of one episode: {video}")


if __name__ == "__main__":
    main()
