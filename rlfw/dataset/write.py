"""A finished run's data written as a Minari dataset: its replay (D4RL's "replay" kind), or episodes played
anew by one of its checkpoints ("medium", "expert"; ``rlfw.dataset.play``), with what a user needs to read
scores from it: the env, the run and checkpoint it came from, and the reference returns of D4RL's
normalized score ``100 (R - R_random) / (R_expert - R_random)``: a uniform random policy's mean return
(played here) and the run's best greedy evaluation (``summary.json``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from rlfw.agent.load import load
from rlfw.dataset.episodes import Episode, from_replay
from rlfw.dataset.play import played
from rlfw.env.packed import space, unpack
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.registry import build
from rlfw.state.resume import load_replay, read_checkpoint


def random_return(option: Any, episodes: int, seed: int) -> float:
    """The mean return of uniform random actions over ``episodes`` episodes of the env ``option``'s eval env."""
    env = option.make(1, evaluation=True)
    env.action_space.seed(seed)
    returns: list[float] = []
    env.reset(seed=seed)
    total = 0.0
    while len(returns) < episodes:
        _, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        total += float(reward[0])
        if terminated[0] or truncated[0]:
            returns.append(total)
            total = 0.0
    env.close()
    return float(np.mean(returns))


def writable(spec: EnvSpec) -> None:
    """Observations this rlfw writes: one agent's, each step's own (arrays, or Dict keys and masks)."""
    if spec.agents or spec.frame_stack:
        raise ConfigError(
            f"rlfw.dataset: {spec.id}'s observations are stacked frames or many agents' rows; this rlfw writes"
            " datasets of one agent's unstacked observations"
        )


def observation_space(spec: EnvSpec) -> gym.Space:
    """What the dataset's observations are: the keys of a packed one (a Dict's, the open actions), or one array."""
    if spec.parts:
        return space(spec.parts)
    return gym.spaces.Box(-np.inf, np.inf, spec.obs_shape, spec.obs_dtype)


def run_episodes(run_dir: Path) -> tuple[list[Episode], dict[str, Any], Path]:
    """The episodes of ``run_dir``'s newest checkpoint's replay, its config, and that checkpoint."""
    last = run_dir / "checkpoints" / "last.ckpt"
    if not last.is_file():
        raise ConfigError(f"rlfw.dataset: {run_dir} holds no checkpoints/last.ckpt (a run folder that trained)")
    state = read_checkpoint(last, "rlfw.dataset")
    if state["replay_file"] is None:
        raise ConfigError(f"rlfw.dataset: {last} has no replay file beside it")
    return from_replay(load_replay(last, state), str(last.parent / state["replay_file"])), state["config"], last


@dataclass
class Play:
    """Episodes to play with a checkpoint instead of writing the replay: ``checkpoint`` a ``.ckpt`` file or
    ``best``/``last`` of the run; ``greedy`` or the run's training rule."""

    episodes: int
    checkpoint: str = "best"
    greedy: bool = False


def played_episodes(run_dir: Path, play: Play) -> tuple[list[Episode], dict[str, Any], Path, str]:
    """The episodes ``play`` says, the config of the run that played them, its checkpoint, and how they were
    played (for the dataset's description)."""
    if play.episodes < 1:
        raise ConfigError(f"rlfw.dataset: --play {play.episodes}: the episodes to play, >= 1")
    named = play.checkpoint in ("best", "last")
    agent = load(run_dir if named else play.checkpoint, play.checkpoint if named else "best")
    writable(agent.spec)  # before playing
    how = "greedily" if play.greedy else "with its training rule"
    episodes = played(agent, play.episodes, play.greedy, agent.config["seed"])
    return episodes, agent.config, agent.checkpoint, f"{play.episodes} episodes played {how} by"


def write(run_dir: Path, dataset_id: str, reference_episodes: int = 10, play: Play | None = None) -> Any:
    """Writes ``run_dir``'s replay, or the episodes ``play`` says, as the Minari dataset ``dataset_id``;
    returns the dataset."""
    import minari
    from minari.data_collector import EpisodeBuffer

    summary_file = run_dir / "summary.json"
    if not summary_file.is_file():
        raise ConfigError(f"rlfw.dataset: {run_dir} holds no summary.json: only a finished run's data is written")
    if dataset_id in minari.list_local_datasets():
        raise ConfigError(f"rlfw.dataset: the dataset {dataset_id} exists already; give another --id (or delete it)")
    if play is None:
        episodes, cfg, checkpoint = run_episodes(run_dir)
        what = "the replay of"
    else:
        episodes, cfg, checkpoint, what = played_episodes(run_dir, play)
    option = build("env", cfg["env"], "env")
    spec = option.spec
    writable(spec)
    summary = json.loads(summary_file.read_text())
    buffers = [
        EpisodeBuffer(
            id=i,
            observations=unpack(e.observations, spec.parts) if spec.parts else e.observations,
            actions=e.actions,
            rewards=e.rewards,
            terminations=e.terminations,
            truncations=e.truncations,
            infos={},
        )
        for i, e in enumerate(episodes)
    ]
    registered = spec.id in gym.registry
    source = f"{run_dir.resolve()} ({checkpoint.name})"
    return minari.create_dataset_from_buffers(
        dataset_id,
        buffers,
        env=spec.id if registered else None,
        observation_space=None if registered and not spec.parts else observation_space(spec),
        action_space=None if registered else spec.action_space,
        algorithm_name=f"rlfw {summary['algo']} ({what} {source})",
        description=f"{what.capitalize()} the rlfw run {source}, which trained {summary['env_steps']:,} env steps.",
        ref_min_score=random_return(option, reference_episodes, cfg["seed"]),
        ref_max_score=summary["best_eval_return_mean"],
        num_episodes_average_score=reference_episodes,
        author="rlfw.dataset",
        author_email="n/a",
        code_permalink="https://github.com/rlfw/rlfw",
        data_format="hdf5",
    )
