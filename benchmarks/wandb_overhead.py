"""What logger=wandb costs: PPO on CartPole with metrics.csv only against metrics.csv plus W&B offline.

    python benchmarks/wandb_overhead.py [--repeats 5] [--steps 50000]

Each run is `python -m rlfw` in its own process (the defaults: PPO, CartPole, one torch thread), with
stop_when_solved=false so every run trains the same env steps. The two loggers take turns, run after
run. W&B is offline (no API key: HOME is a temporary folder) and writes into the run folder, as it
does on any machine without an account. Prints each run's training env steps/s (summary.json: the
steps over the wall time of training) and the whole process's wall seconds (start-up, W&B's start
and finish included), then medians and the ratios W&B / CSV. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def one_run(logger: str, steps: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("WANDB_")} | {"HOME": tmp}
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "rlfw",
                f"logger={logger}",
                "stop_when_solved=false",
                f"total_env_steps={steps}",
                f"hydra.run.dir={tmp}/run",
            ],
            check=True,
            capture_output=True,
            env=env,
        )
        wall = time.perf_counter() - started
        return json.loads((Path(tmp) / "run" / "summary.json").read_text())["steps_per_second"], wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=50_000)
    args = parser.parse_args()
    rates: dict[str, list[float]] = {"csv": [], "wandb": []}
    walls: dict[str, list[float]] = {"csv": [], "wandb": []}
    print(f"PPO on CartPole, {args.steps:,} env steps, csv vs wandb (offline), taking turns:")
    for i in range(args.repeats):
        for logger in ("csv", "wandb"):
            rate, wall = one_run(logger, args.steps)
            rates[logger].append(rate)
            walls[logger].append(wall)
            print(f"  repeat {i + 1} logger={logger:6} {rate:7.0f} steps/s training, {wall:5.1f} s process", flush=True)
    rate = {k: statistics.median(v) for k, v in rates.items()}
    wall = {k: statistics.median(v) for k, v in walls.items()}
    print(
        f"medians: csv {rate['csv']:.0f} steps/s, wandb {rate['wandb']:.0f} steps/s: ratio {rate['wandb'] / rate['csv']:.3f};"
        f" process wall csv {wall['csv']:.1f} s, wandb {wall['wandb']:.1f} s: ratio {wall['csv'] / wall['wandb']:.3f} (csv / wandb)"
    )


if __name__ == "__main__":
    main()
