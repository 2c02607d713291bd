"""Short finished runs to load, play and export: one per head kind (Rainbow's distributional Q with noisy
layers, a plain Q on pixels, actor-critics, a recurrent actor-critic)."""

from pathlib import Path

import pytest

import rlfw
from tests.helpers import SMALL_SAC, made_once

RUNS = {
    "ppo": ["algo=ppo", "env=cartpole", "total_env_steps=2048", "eval.every=1024"],
    "rainbow": ["algo=rainbow", "env=cartpole", "total_env_steps=2000", "eval.every=1000"],
    "catch": ["algo=dqn", "env=catch", "total_env_steps=2000", "eval.every=1000"],
    # a Gaussian policy over normalized observations (conf/tuned/ppo_pendulum.yaml)
    "pendulum": ["algo=ppo", "env=pendulum", "total_env_steps=4096", "eval.every=4096"],
    # a recurrent policy (an LSTM per trunk) on CartPole without velocities
    "ppo_lstm": [
        "algo=ppo_lstm",
        "env=cartpole_novel",
        "network.head.cell=lstm",  # the tuned GRU runs in tests/state/test_resume.py
        "replay.epochs=4",
        "total_env_steps=2048",
        "eval.every=1024",
    ],
    # a squashed Gaussian actor with critics
    "sac": [
        "algo=sac",
        "env=pendulum",
        *SMALL_SAC,
        "total_env_steps=1500",
        "replay.learning_starts=500",
        "eval.every=1500",
    ],
}


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Trained with ``rlfw.train``, once per test session."""

    def train(root: Path) -> None:
        for name, overrides in RUNS.items():
            rlfw.train(overrides, run_dir=root / name)

    root = made_once(tmp_path_factory, "agent_runs", train)
    return {name: root / name for name in RUNS}
