"""rlfw's MAPPO and IPPO against BenchMARL's (1.5.2, on TorchRL 0.11) on MPE's Simple Spread, same budget.

    python benchmarks/benchmarl_spread.py --benchmarl-python /path/to/venv/bin/python [--seeds 0 1 2]

BenchMARL pins its own TorchRL and tensordict, so it runs from a venv of its own (``pip install
torch==2.13.0 benchmarl==1.5.2 pettingzoo==1.27.0 mpe2``); rlfw runs from this one. The task is
``mpe2.simple_spread_v3`` (N=3, 25 steps, discrete actions, local_ratio 0.5) on both sides: BenchMARL's
own PettingZoo tasks import MPE from ``pettingzoo.mpe``, which PettingZoo 1.27 no longer has, so its
task's env function here wraps mpe2's env in TorchRL's ``PettingZooWrapper``, as BenchMARL's does for
PettingZoo's. Both sides train 49,152 env steps (48 batches) (BenchMARL's frames: one per step of an env) with the
values of ``conf/tuned/{ppo,mappo}_mpe_spread.yaml``: 8 envs, 128-step rollouts (1,024 env steps a
batch), 10 epochs of 2 minibatches, lr 7e-4, entropy 0.01, gamma 0.99, GAE lambda 0.95, clip 0.2,
64x64 tanh trunks, shared parameters, greedy evaluation of 10 episodes at the end. Each run is its own
process with one torch thread, one at a time. Prints each run's env steps per second (the run's whole
training time, evaluations included, set-up left out), its final greedy return per agent, medians and
the ratios rlfw / BenchMARL.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

STEPS = 49_152  # 48 batches of 1,024 env steps: BenchMARL evaluates at a multiple of its batch


def rlfw(algo: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "rlfw", f"algo={algo}", "env=mpe_spread", f"seed={seed}", "threads=1",
             f"total_env_steps={STEPS}", f"eval.every={STEPS}", "network.encoder.activation=tanh",
             "trainer.gradient_clip_val=0.5", f"hydra.run.dir={tmp}"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        summary = json.loads((Path(tmp) / "summary.json").read_text())
    return {"steps": summary["env_steps"], "wall_s": summary["wall_seconds"], "return": summary["eval_return_mean"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmarl-python", help="the python of a venv with benchmarl 1.5.2")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--algos", nargs="+", default=["mappo", "ppo"])
    args = parser.parse_args()
    if not args.benchmarl_python:
        parser.error("--benchmarl-python: the python of a venv with benchmarl 1.5.2 installed")
    results: dict[tuple[str, str], list[dict]] = {}
    for algo in args.algos:
        for seed in args.seeds:
            theirs = "mappo" if algo == "mappo" else "ippo"
            done = subprocess.run(
                [args.benchmarl_python, str(Path(__file__).with_name("benchmarl_side.py")), theirs, str(seed)],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
            runs = {"benchmarl": json.loads(done.stdout.strip().splitlines()[-1]), "rlfw": rlfw(algo, seed)}
            for side, run in runs.items():
                results.setdefault((algo, side), []).append(run)
                print(
                    f"{algo} seed {seed} {side:9s}: {run['steps']:,} env steps, {run['steps'] / run['wall_s']:,.0f}"
                    f" steps/s, greedy return per agent {run['return']:.1f}",
                    flush=True,
                )
    for algo in args.algos:
        speed = {
            s: statistics.median(r["steps"] / r["wall_s"] for r in results[algo, s]) for s in ("rlfw", "benchmarl")
        }
        ret = {s: statistics.median(r["return"] for r in results[algo, s]) for s in ("rlfw", "benchmarl")}
        print(
            f"{algo}: median steps/s rlfw {speed['rlfw']:,.0f}, BenchMARL {speed['benchmarl']:,.0f}"
            f" (ratio {speed['rlfw'] / speed['benchmarl']:.2f}); median return rlfw {ret['rlfw']:.1f},"
            f" BenchMARL {ret['benchmarl']:.1f}"
        )


if __name__ == "__main__":
    main()
