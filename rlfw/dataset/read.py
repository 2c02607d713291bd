"""A local Minari dataset as one time-major block of transitions (what ``replay=dataset`` samples from),
read without the network from ``MINARI_DATASETS_PATH`` (default ``~/.minari/datasets``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, cast

import numpy as np

from rlfw.env.packed import pack
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError

SOURCES = ("minari",)


@dataclass
class Transitions:
    """Every step of the dataset's episodes, concatenated in episode order, the references of the
    normalized score (None where the dataset has none) and the env they were played in."""

    obs: np.ndarray  # a Dict dataset's: each key's values (``as_packed`` packs them for the run's env)
    action: np.ndarray
    reward: np.ndarray
    next_obs: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    ref_min_score: float | None
    ref_max_score: float | None
    env_id: str | None = None  # the gymnasium id of the env its episodes were played in, where it records one

    def __len__(self) -> int:
        return len(self.action)


DAMAGED = (OSError, KeyError, ValueError, RuntimeError)  # what h5py and Minari raise on a damaged file


def damaged(dataset_id: str | None, err: Exception) -> ConfigError:
    return ConfigError(f"data.id={dataset_id}: the dataset cannot be read ({type(err).__name__}: {err})")


def load(dataset_id: str | None) -> Any:
    """The Minari dataset ``dataset_id``, from the local datasets only; one line naming those there are."""
    try:
        import minari
    except ImportError:
        raise ConfigError('data=minari needs Minari: pip install "rlfw[data]"') from None
    local = sorted(minari.list_local_datasets())
    if dataset_id is None:
        raise ConfigError(f"data.id: which local Minari dataset to learn from; there: {', '.join(local) or 'none'}")
    if dataset_id not in local:
        where = minari.storage.get_dataset_path("")
        raise ConfigError(
            f"data.id={dataset_id}: no such local Minari dataset under {where}; there: {', '.join(local) or 'none'}"
        )
    try:
        return minari.load_dataset(dataset_id, download=False)
    except DAMAGED as err:
        raise damaged(dataset_id, err) from err


def read(data: dict[str, Any]) -> Transitions:
    """The transitions of the dataset ``data`` names (``conf/data/<name>.yaml``)."""
    if data["name"] not in SOURCES:
        raise ConfigError(f"data={data['name']}: no such data source; valid: {', '.join(SOURCES)}")
    return transitions(data["id"], os.environ.get("MINARI_DATASETS_PATH"))


@lru_cache(maxsize=2)  # a run builds its parts twice (checked, then trained): the dataset is read once
def transitions(dataset_id: str | None, root: str | None) -> Transitions:
    """Every step of the local dataset ``dataset_id`` under ``root`` (MINARI_DATASETS_PATH), never changed
    after: the replay and the normalizer only read them."""
    dataset = load(dataset_id)
    parts: dict[str, list[np.ndarray]] = {
        k: [] for k in ("obs", "action", "reward", "next_obs", "terminated", "truncated")
    }
    try:
        episodes = list(dataset.iterate_episodes())
    except DAMAGED as err:
        raise damaged(dataset_id, err) from err
    for episode in episodes:
        observations = episode.observations
        if not isinstance(observations, (np.ndarray, dict)):
            raise ConfigError(f"data.id={dataset_id}: Tuple observations; this rlfw reads arrays and Dicts")
        parts["obs"].append(_steps(observations, slice(None, -1)))
        parts["next_obs"].append(_steps(observations, slice(1, None)))
        parts["action"].append(np.asarray(episode.actions))
        parts["reward"].append(np.asarray(episode.rewards, dtype=np.float32))
        parts["terminated"].append(np.asarray(episode.terminations, dtype=bool))
        parts["truncated"].append(np.asarray(episode.truncations, dtype=bool))
    if not parts["obs"] or not sum(len(a) for a in parts["action"]):
        raise ConfigError(f"data.id={dataset_id}: the dataset holds no steps")
    metadata, env_spec = dataset.storage.metadata, dataset.spec.env_spec
    return Transitions(
        **{k: _joined(v) for k, v in parts.items()},
        ref_min_score=metadata.get("ref_min_score"),
        ref_max_score=metadata.get("ref_max_score"),
        env_id=None if env_spec is None else env_spec.id,
    )


def _steps(observations: Any, rows: slice) -> Any:
    """``rows`` of an episode's observations: of an array, or of each key of a Dict."""
    return {k: v[rows] for k, v in observations.items()} if isinstance(observations, dict) else observations[rows]


def _joined(pieces: list[Any]) -> Any:
    """The episodes' pieces one after another: arrays, or each key's of Dicts."""
    if isinstance(pieces[0], dict):
        return {k: np.concatenate([p[k] for p in pieces]) for k in pieces[0]}
    return np.concatenate(pieces)


def as_packed(dataset_id: str, data: Transitions, spec: EnvSpec) -> Transitions:
    """A Dict dataset's observations packed as the env ``spec`` packs its own (``rlfw.env.packed``: its keys,
    its open actions); an array dataset as it is."""
    if not isinstance(data.obs, dict):
        return data
    keys, wanted = sorted(data.obs), sorted(p.key for p in spec.parts)
    if keys != wanted:
        raise ConfigError(
            f"data.id={dataset_id}: its observations' keys are {', '.join(keys)}; env {spec.id}'s are"
            f" {', '.join(wanted) or 'none (it gives arrays)'}"
        )
    obs, next_obs = (pack(cast(dict, o), spec.parts, spec.obs_dtype) for o in (data.obs, data.next_obs))
    return replace(data, obs=obs, next_obs=next_obs)


def fits(dataset_id: str, data: Transitions, spec: EnvSpec) -> None:
    """The dataset's observations and actions are the env's (what the network and the evaluation use), one
    row a step."""
    if spec.rows_per_copy > 1:
        raise ConfigError(
            f"data.id={dataset_id}: env {spec.id} steps {spec.rows_per_copy} rows a copy; a dataset holds one row a step"
        )
    obs_shape = data.obs.shape[1:]
    if obs_shape != spec.obs_shape:
        raise ConfigError(
            f"data.id={dataset_id}: observations of shape {obs_shape} do not fit env {spec.id}'s {spec.obs_shape}"
        )
    action = data.action
    if spec.discrete:
        whole = np.issubdtype(action.dtype, np.integer) and action.ndim == 1
        if not whole or action.min() < 0 or action.max() >= spec.num_actions:
            raise ConfigError(
                f"data.id={dataset_id}: its actions are not the discrete actions 0..{spec.num_actions - 1} of env {spec.id}"
            )
    elif action.ndim != 2 or action.shape[1:] != spec.action_space.shape:
        raise ConfigError(
            f"data.id={dataset_id}: actions of shape {action.shape[1:]} do not fit env {spec.id}'s"
            f" {spec.action_space} (discrete data cannot train a continuous-action algorithm, nor the reverse)"
        )
