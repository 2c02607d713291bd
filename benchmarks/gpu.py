"""On a GPU machine: PPO on Pong to a greedy eval of 20 against the clock, and DQN's training rate
with several envs acting in one batch.

    python benchmarks/gpu.py --out DIR [--ppo-seconds 450] [--dqn-seconds 45] [--dqn-envs 16 64] [--set KEY=VALUE ...]

(`--set trainer.accelerator=cpu eval.every=2048 ...` tries it on a CPU with tiny budgets: later overrides win.)

Each run is `python -m rlfw` in a subprocess, in its own folder under DIR, stopped with SIGTERM at its
deadline if it has not ended (rlfw writes a checkpoint and stops in one line). Everything printed is
read from the runs' own files: the evaluations from summary.json or the last checkpoint, where the time
went from metrics.csv's `time/*_s` columns (rlfw.run.timings).

- PPO: `algo=ppo env=pong trainer.accelerator=gpu` with conf/tuned/ppo_atari.yaml's values in the
  layout of 32 envs x 64 steps (the same 2,048-sample rollouts in 8 minibatches of 256, so the same 16
  gradient steps per 1,024 env steps; the 16 env threads get work), a greedy eval of 8 full games every
  250k env steps. stop_when_solved ends it at the first eval >= 20.
- DQN: conf/tuned/dqn_atari.yaml's one update per 4 env steps, with N envs acting in one batch and N/4
  updates after each vector step, learning from 20k steps (a 100k replay, allocated in seconds), epsilon
  at its final 0.01 from there. Training env steps/s over the train rows after learning started, and
  the cost of an update and of an act from the run's timers.

Writes DIR/gpu.txt (the report, also printed) and DIR/ppo_pong.csv (the evaluations).
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import signal
import subprocess
import sys
import time
from pathlib import Path

import torch

PPO = [
    "algo=ppo",
    "env=pong",
    "trainer.accelerator=gpu",
    "num_envs=32",
    "replay.num_steps=64",
    "replay.minibatches=8",
    "eval.every=250_000",
    "checkpoint.every=1_000_000",
]


def dqn(envs: int) -> list[str]:
    return [
        "algo=dqn",
        "env=pong",
        "trainer.accelerator=gpu",
        f"num_envs={envs}",
        f"replay.updates={envs // 4}",
        "replay.learning_starts=20_000",
        "replay.capacity=100_000",
        "explore.decay_steps=20_000",
        "total_env_steps=50_000_000",
        "eval.every=100_000_000",
        "eval.episodes=1",
        "checkpoint.every=null",
        "checkpoint.every_s=null",
        "log_every=50",
    ]


def run(folder: Path, overrides: list[str], seconds: float) -> float:
    """`python -m rlfw overrides` into ``folder``, SIGTERM after ``seconds``; returns the wall seconds."""
    command = [sys.executable, "-m", "rlfw", *overrides, f"hydra.run.dir={folder}"]
    print("$ python", " ".join(command[1:]), flush=True)
    started = time.monotonic()
    with open(folder.with_suffix(".log"), "w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGTERM)
            process.wait()
    return time.monotonic() - started


def train_rows(folder: Path) -> list[dict[str, float]]:
    if not (folder / "metrics.csv").exists():  # stopped before its first row
        return []
    with open(folder / "metrics.csv") as f:
        rows = [r for r in csv.DictReader(f) if r.get("train/updates")]
    return [{k: float(v) for k, v in r.items() if v} for r in rows]


def phases(row: dict[str, float]) -> dict[str, float]:
    return {k[5:-2]: v for k, v in row.items() if k.startswith("time/") and k != "time/steps_per_s"}


def split(row: dict[str, float]) -> str:
    seconds = phases(row)
    wall = sum(seconds.values())
    return ", ".join(f"{k} {v:.0f} s ({100 * v / wall:.0f}%)" for k, v in seconds.items())


def ppo_report(folder: Path, wall: float) -> list[str]:
    summary = folder / "summary.json"
    if summary.exists():
        evals = json.loads(summary.read_text())["evals"]
    else:  # stopped at the deadline: the checkpoint it wrote holds the evaluations so far
        evals = torch.load(folder / "checkpoints" / "last.ckpt", weights_only=True)["run"]["evals"]
    with open(folder.parent / "ppo_pong.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, ["env_steps", "wall_seconds", "return_mean", "return_std"])
        writer.writeheader()
        writer.writerows({k: e[k] for k in writer.fieldnames} for e in evals)
    solved = next((e for e in evals if e["return_mean"] >= 20), None)
    rows = train_rows(folder)
    lines = [f"PPO on Pong ({wall:.0f} s with start-up; {'summary.json' if summary.exists() else 'stopped'})"]
    lines += [
        f"  eval at {e['env_steps']:>9,} env steps, {e['wall_seconds']:6.1f} s: {e['return_mean']:5.1f} +- {e['return_std']:.1f}"
        for e in evals
    ]
    if solved:
        lines.append(
            f"  solved: {solved['return_mean']:.1f} at {solved['env_steps']:,} env steps in {solved['wall_seconds'] / 60:.1f} min"
        )
    else:
        lines.append("  not solved before the deadline")
    if rows:
        last = rows[-1]
        lines.append(
            f"  {last['step']:,.0f} env steps, {last['time/steps_per_s']:,.0f} env steps/s; time: {split(last)}"
        )
    return lines


def dqn_report(folder: Path, envs: int) -> list[str]:
    rows = [r for r in train_rows(folder) if r["train/updates"] > 0]
    if len(rows) < 2:
        return [f"DQN on Pong, {envs} envs: fewer than two train rows (see {folder}.log)"]
    first, last = rows[0], rows[-1]
    d = {k: phases(last)[k] - phases(first)[k] for k in phases(last)}
    steps, updates = last["step"] - first["step"], last["train/updates"] - first["train/updates"]
    wall = sum(d.values())
    return [
        f"DQN on Pong, {envs} envs, {envs // 4} updates per vector step, epsilon {last['train/epsilon']:.2f}:"
        f" {steps / wall:,.0f} training env steps/s over {steps:,.0f} env steps ({wall:.0f} s)",
        f"  an update {1000 * d['update'] / updates:.2f} ms (batch 32, its sampling included),"
        f" an act {1000 * d['act'] * envs / steps:.2f} ms, an env step of {envs} envs {1000 * d['env'] * envs / steps:.2f} ms;"
        f" shares: " + ", ".join(f"{k} {100 * v / wall:.0f}%" for k, v in d.items()),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--ppo-seconds", type=float, default=450)
    parser.add_argument("--dqn-seconds", type=float, default=45)
    parser.add_argument("--dqn-envs", type=int, nargs="*", default=[16, 64])
    parser.add_argument("--set", nargs="*", default=[], help="overrides added to every run")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True
    ).stdout.strip()
    report = [
        f"{device}, {torch.get_num_threads()} CPU threads; python {platform.python_version()}, torch {torch.__version__};"
        f" rlfw at {commit or 'unknown'}"
    ]
    if args.ppo_seconds > 0:
        folder, overrides = args.out / "ppo_pong", PPO + args.set
        report += [
            "",
            "$ python -m rlfw " + " ".join(overrides),
            *ppo_report(folder, run(folder, overrides, args.ppo_seconds)),
        ]
    for envs in args.dqn_envs:
        folder, overrides = args.out / f"dqn_pong_{envs}", dqn(envs) + args.set
        run(folder, overrides, args.dqn_seconds)
        report += ["", "$ python -m rlfw " + " ".join(overrides), *dqn_report(folder, envs)]
    text = "\n".join(report) + "\n"
    (args.out / "gpu.txt").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
