"""rlfw's offline algorithms against d3rlpy 2.8.1's, on the same dataset, values and number of updates.

    python benchmarks/d3rlpy_offline.py --d3rlpy-python /path/to/venv/bin/python \
        --dataset rlfw/pendulum/sacmid-replay-v0 --env pendulum [--algos td3_bc iql cql] [--seeds 0 1 2] [--updates 10000]

d3rlpy pins gymnasium 1.0.0, so it runs from a venv of its own (``pip install torch==2.13.0 d3rlpy==2.8.1``)
through ``benchmarks/d3rlpy_side.py``; rlfw runs from this one. The dataset is a local Minari dataset (write
one with ``python -m rlfw.dataset``, docs/guide/offline.md): rlfw reads it as ``data=minari`` does and hands
d3rlpy the same transitions as arrays (d3rlpy's own Minari reader downloads). Both sides: 256x256 ReLU
networks, batches of 256, standardized observations, the values of ``conf/algo/<algo>.yaml`` (d3rlpy's
defaults but for CQL's conservative weight, fixed at 5 as rlfw's, and its soft target, SAC's), one torch
thread, each run its own process, the two sides taking turns; rlfw with its default precision (bf16 matrix
products where the CPU has bf16 instructions and they pay, docs/guide/precision.md), d3rlpy in fp32. Prints each run's updates per second (its
training time: d3rlpy's ``fit``, rlfw's run less its evaluations), the greedy return over 10 episodes at
the end and its normalized score (the dataset's references), then medians and the ratio rlfw / d3rlpy.
Where the two differ: d3rlpy's IQL policy is a Gaussian with a state-independent std and a tanh mean,
rlfw's is SAC's squashed Gaussian head.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from rlfw.config.preflight import composed
from rlfw.dataset.read import Transitions, transitions
from rlfw.machine import cpu_model, native_bf16
from rlfw.registry import build


def export(data: Transitions, folder: Path) -> Path:
    """The dataset's transitions as arrays d3rlpy's ``MDPDataset`` takes."""
    path = folder / "data.npz"
    fields = ("obs", "action", "reward", "terminated", "truncated")
    np.savez(path, **{f: getattr(data, f) for f in fields})
    return path


def rlfw_run(algo: str, seed: int, updates: int, dataset: str, env: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "rlfw", f"algo={algo}", f"env={env}", "data=minari", f"data.id={dataset}",
             f"seed={seed}", "threads=1", f"total_updates={updates}", f"eval.every={updates}",
             f"replay.updates={min(updates, 1000)}", "stop_when_solved=false", f"hydra.run.dir={tmp}"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        summary = json.loads((Path(tmp) / "summary.json").read_text())
    seconds = summary["wall_seconds"] - summary["time_seconds"]["evaluate"]
    return {"updates": summary["updates"], "seconds": seconds, "return": summary["eval_return_mean"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--d3rlpy-python", help="the python of a venv with d3rlpy 2.8.1")
    parser.add_argument("--dataset", required=True, help="a local Minari dataset's id")
    parser.add_argument("--env", required=True, help="rlfw's env option the dataset was played in (pendulum)")
    parser.add_argument("--algos", nargs="+", default=["td3_bc", "iql", "cql"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--updates", type=int, default=10_000)
    args = parser.parse_args()
    if not args.d3rlpy_python:
        parser.error("--d3rlpy-python: the python of a venv with d3rlpy 2.8.1 installed")
    data = transitions(args.dataset, os.environ.get("MINARI_DATASETS_PATH"))
    low, high = data.ref_min_score, data.ref_max_score
    env_id = build("env", composed(f"env={args.env}")["env"], "env").spec.id
    print(
        f"CPU: {cpu_model()}; bf16 instructions: {native_bf16()}; rlfw with network.precision=auto, its default",
        flush=True,
    )
    results: dict[tuple[str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        arrays = export(data, Path(tmp))
        for algo in args.algos:
            for seed in args.seeds:
                done = subprocess.run(
                    [args.d3rlpy_python, str(Path(__file__).with_name("d3rlpy_side.py")), algo, str(seed),
                     str(args.updates), str(arrays), env_id],
                    check=True, capture_output=True, text=True,
                )  # fmt: skip
                runs = {
                    "d3rlpy": json.loads(done.stdout.strip().splitlines()[-1]),
                    "rlfw": rlfw_run(algo, seed, args.updates, args.dataset, args.env),
                }
                for side, run in runs.items():
                    run["score"] = None if low is None else 100 * (run["return"] - low) / (high - low)
                    results.setdefault((algo, side), []).append(run)
                    print(
                        f"{algo} seed {seed} {side:6s}: {run['updates']:,} updates, {run['updates'] / run['seconds']:,.1f}"
                        f" updates/s, greedy return {run['return']:.1f}, normalized {run['score']:.1f}",
                        flush=True,
                    )
    for algo in args.algos:
        speed = {
            s: statistics.median(r["updates"] / r["seconds"] for r in results[algo, s]) for s in ("rlfw", "d3rlpy")
        }
        score = {s: [round(r["score"], 1) for r in results[algo, s]] for s in ("rlfw", "d3rlpy")}
        print(
            f"{algo}: median updates/s rlfw {speed['rlfw']:,.1f}, d3rlpy {speed['d3rlpy']:,.1f} (ratio"
            f" {speed['rlfw'] / speed['d3rlpy']:.2f}); normalized scores rlfw {score['rlfw']}, d3rlpy {score['d3rlpy']}"
        )


if __name__ == "__main__":
    main()
