"""A run killed at an arbitrary moment and resumed ends exactly as the uninterrupted run: the same
metric rows (all but the time/ columns), the same evaluations, the same final parameters."""

from __future__ import annotations

import csv
import json
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from rlfw.testing import run
from tests.helpers import SMALL_SAC, run_printed
from tests.offline_data import PENDULUM

# Small runs (a smaller network than the tuned one), each with 3+ checkpoints and evaluations.
# DQN on Taxi: its open actions ride with the observations through prioritized 3-step replay
DQN = (
    "algo=dqn",
    "env=taxi",
    "replay=prioritized",
    "replay.n_step=3",
    "network.encoder.hidden=[64,64]",
    "total_env_steps=3000",
    "replay.learning_starts=500",
    "eval.every=1000",
)
# compiled (compile=true): the resumed process compiles anew and must still end as the one never stopped
# Rainbow: C51's distributions, noisy layers (their noise is drawn from torch's generator, restored),
# prioritized 3-step replay, dueling, the Double target
RAINBOW = ("algo=rainbow", "total_env_steps=3000", "replay.learning_starts=500", "eval.every=1000")
PPO = ("algo=ppo", "total_env_steps=8192", "eval.every=2048", "compile=true")
PIXELS = ("algo=dqn", "env=catch", "total_env_steps=3000", "replay.learning_starts=500", "eval.every=1000")
# continuous actions, with the statistics of observation normalization (the network's buffers) and of
# reward scaling (the replay's state)
CONTINUOUS = (
    "algo=ppo",
    "env=pendulum",
    "replay.num_steps=256",
    "replay.normalize_reward=true",
    "total_env_steps=8192",
    "eval.every=2048",
)
# an off-policy actor-critic: twin critics, Polyak-averaged target critics, the learned temperature
SAC = (
    "algo=sac",
    "env=pendulum",
    *SMALL_SAC,
    "total_env_steps=1500",
    "replay.learning_starts=300",
    "eval.every=500",
    "checkpoint.every=500",  # an update per env step: a third of the others' steps, as many checkpoints
)
# a recurrent policy: the collector's per-env states and the rollout's column states travel in the checkpoint
RECURRENT = ("algo=ppo_lstm", "env=cartpole_novel", "replay.epochs=4", "total_env_steps=8192", "eval.every=2048")
# many agents as rows, some leaving before the others (their rows do not act), a critic of the global state
MAPPO = (
    "algo=mappo",
    "env=pettingzoo",
    "env.id=tests.env.agents:Counters",
    "+env.kwargs.leave=true",
    "+env.kwargs.global_state=true",
    "env.agents_leave=true",
    "total_env_steps=16384",  # its steps are fast: a shorter run can end before the kill lands
    "eval.every=4096",
)
# self-play with a league: past versions play seats inside the env's step; the evaluation's previous opponent
LEAGUE = (
    "algo=ppo",
    "env=connect_four",
    "league.past=0.5",
    "league.every=512",
    "replay.num_steps=32",
    "total_env_steps=4096",
    "eval.every=1024",
    "eval.episodes=4",
)
# learning from a dataset: no training envs, the run counts updates; IQL's value network is the loss's own,
# the observation statistics are the dataset's
OFFLINE = (
    "algo=iql",
    "env=pendulum",
    "data=minari",
    f"data.id={PENDULUM}",
    "network.encoder.hidden=[64,64]",
    "network.head.critic_hidden=[64,64]",
    "loss.value_hidden=[64,64]",
    "replay.batch_size=64",
    "replay.updates=150",
    "total_updates=1200",
    "eval.every=300",
    "eval.episodes=2",
    "checkpoint.every=300",
)
COMMON = ("threads=1", "stop_when_solved=false", "checkpoint.every=1000")  # before each case's: it may set its own


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The run never stopped, for each config (made once per module)."""
    made: dict[tuple, Path] = {}

    def run_dir(overrides: tuple) -> Path:
        if overrides not in made:
            made[overrides] = tmp_path_factory.mktemp("whole")
            run(made[overrides], *overrides)
        return made[overrides]

    return run_dir


def metric_rows(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv") as f:
        return [{k: v for k, v in row.items() if not k.startswith("time/")} for row in csv.DictReader(f)]


def evals(run_dir: Path) -> list[tuple]:
    summary = json.loads((run_dir / "summary.json").read_text())
    return [(e["env_steps"], e["return_mean"], e["return_std"]) for e in summary["evals"]]


def final_parameters(run_dir: Path) -> dict[str, torch.Tensor]:
    return torch.load(run_dir / "checkpoints" / "last.ckpt", weights_only=True)["state_dict"]


def start(run_dir: Path, *overrides: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "rlfw", *overrides, f"hydra.run.dir={run_dir}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_checkpoints(process: subprocess.Popen, run_dir: Path, count: int, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while len(list((run_dir / "checkpoints").glob("*=*.ckpt"))) < count:  # env_steps=, or updates=
        assert process.poll() is None, f"the run ended before its checkpoint {count}: {process.stderr.read()[-2000:]}"
        assert time.monotonic() < deadline, "no checkpoint in time"
        time.sleep(0.05)


def assert_same_run(resumed: Path, uninterrupted: Path) -> None:
    assert metric_rows(resumed) == metric_rows(uninterrupted)
    assert evals(resumed) == evals(uninterrupted)
    a, b = final_parameters(resumed), final_parameters(uninterrupted)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(
    "args",
    [RAINBOW, PPO, PIXELS, CONTINUOUS, SAC, RECURRENT, MAPPO, LEAGUE, OFFLINE],  # DQN's: the SIGTERM test below
    ids=[
        "rainbow",
        "ppo-compiled",
        "pixels-catch",
        "continuous-normalized",
        "sac",
        "ppo-lstm",
        "mappo",
        "league",
        "offline-iql",
    ],
)
def test_killed_and_resumed_run_ends_as_the_uninterrupted_one(args, tmp_path, uninterrupted, datasets):
    overrides = (*COMMON, *args)
    killed = tmp_path / "killed"
    process = start(killed, *overrides)
    wait_for_checkpoints(process, killed, 2)
    time.sleep(random.Random(" ".join(args)).uniform(0.0, 0.4))  # somewhere after it, mid-phase or mid-write
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not (killed / "summary.json").exists(), "the run finished before it was killed: nothing was tested"
    run(killed, *overrides, "resume=auto")
    assert_same_run(killed, uninterrupted(overrides))


def test_sigterm_checkpoints_and_the_resume_it_prints_ends_as_the_uninterrupted_run(tmp_path, uninterrupted):
    overrides = (*COMMON, *DQN)
    stopped = tmp_path / "stopped"
    process = start(stopped, *overrides)
    wait_for_checkpoints(process, stopped, 1)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr[-2000:]
    line = stderr.strip().splitlines()[-1]
    assert re.match(r"rlfw: stopped by SIGTERM at [\d,]+ env steps; checkpoint: .*last\.ckpt; resume with: ", line), (
        line
    )
    assert "resume=auto" in shlex.split(line)
    resumed = run_printed(line)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert_same_run(stopped, uninterrupted(overrides))


def test_ctrl_c_stops_within_seconds_with_a_checkpoint(tmp_path):
    process = start(
        tmp_path,
        "algo=ppo",
        "total_env_steps=1_000_000",
        "stop_when_solved=false",
        "threads=1",
        "checkpoint.every=null",
    )
    deadline = time.monotonic() + 120
    while not (tmp_path / "metrics.csv").exists() and time.monotonic() < deadline:  # training has started
        time.sleep(0.1)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert time.monotonic() - sent < 10
    assert process.returncode == 130, stderr[-2000:]
    assert "stopped by SIGINT" in stderr and "Traceback" not in stderr
    assert (tmp_path / "checkpoints" / "last.ckpt").is_file()
