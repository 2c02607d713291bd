"""bf16 against fp32 convolutions on the CPU: the Nature CNN's speed, and learning on Catch and Breakout-MinAtar.

    pip install -e ".[bench,minatar]" && python benchmarks/bf16.py [--parts kernels learning] [--seeds 0 1 2]

- kernels: rlfw's Nature CNN encoder (``network.encoder.precision`` fp32, then bf16) on 4 stacked 84x84
  frames: a no-grad forward at the batch sizes that act (1 env for DQN, 8 for PPO) and a forward and
  backward at the batch sizes that learn (DQN's 32, PPO's 256); torch threads: every core, as on
  Atari. Medians of 7 timings, the two precisions taking turns.
- learning: the same runs with ``network.encoder.precision=fp32`` and ``=bf16``, seed by seed, one at a
  time with one torch thread (benchmarks/time_to_score.py's ``run_rlfw``): DQN on Catch
  (conf/tuned/dqn_catch.yaml, 20k env steps) and PPO on Breakout-MinAtar (conf/tuned/ppo_minatar.yaml,
  300k env steps), each over its whole budget. Prints each run's final greedy eval and last-100
  training return, the env steps where greedy eval first reached the task's mark, and means over seeds.

On a CPU without bf16 instructions oneDNN emulates bf16: the kernels part shows what that costs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from time_to_score import run_rlfw

TASKS = {  # name: (overrides, the greedy-eval mark whose first crossing is reported)
    "catch dqn": (["algo=dqn", "env=catch", "total_env_steps=20000", "eval.every=1000", "eval.episodes=20"], 0.9),
    "breakout-minatar ppo": (
        [
            "algo=ppo",
            "env=minatar",
            "env.game=breakout",
            "total_env_steps=300000",
            "eval.every=25000",
            "eval.episodes=20",
        ],
        10.0,
    ),
}
SHAPES = [("forward", 1), ("forward", 8), ("forward+backward", 32), ("forward+backward", 256)]


def kernels() -> None:
    import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

    # isort: split
    import gymnasium as gym
    import numpy as np
    import torch

    from rlfw.env.spec import EnvSpec
    from rlfw.machine import cores, native_bf16
    from rlfw.network.encoder.cnn import NatureCNN

    torch.set_num_threads(cores())
    torch.manual_seed(0)
    spec = EnvSpec("Pong", (4, 84, 84), gym.spaces.Discrete(6), None, np.dtype(np.uint8), 4)
    cnn = NatureCNN(spec, precision="fp32")
    print(f"Nature CNN on [B, 4, 84, 84] uint8, {cores()} torch threads; bf16 instructions: {native_bf16()}")
    for what, batch in SHAPES:
        pixels = torch.randint(0, 256, (batch, 4, 84, 84), dtype=torch.uint8)

        def once(what: str = what, pixels: torch.Tensor = pixels) -> None:
            if what == "forward":
                with torch.no_grad():
                    cnn(pixels)
            else:
                cnn(pixels).sum().backward()

        times: dict[bool, list[float]] = {False: [], True: []}
        repeat = max(3, 256 // batch)
        for _ in range(7):
            for bf16 in (False, True):
                cnn.bf16 = bf16
                once()  # warm: oneDNN makes its kernels for this shape and precision
                started = time.perf_counter()
                for _ in range(repeat):
                    once()
                times[bf16].append((time.perf_counter() - started) / repeat * 1000)
        fp32, bf16 = statistics.median(times[False]), statistics.median(times[True])
        print(f"  {what:16} batch {batch:3}: fp32 {fp32:7.2f} ms, bf16 {bf16:7.2f} ms, fp32 / bf16 {fp32 / bf16:.2f}")


def learning(seeds: list[int]) -> None:
    print("task                 precision seed  final eval  train last-100  first at mark  wall s")
    for task, (overrides, mark) in TASKS.items():
        means = {}
        for precision in ("fp32", "bf16"):
            finals, trains, walls = [], [], []
            for seed in seeds:
                r = run_rlfw(
                    *overrides, "stop_when_solved=false", f"network.encoder.precision={precision}", f"seed={seed}"
                )
                first = next((e["env_steps"] for e in r["evals"] if e["return_mean"] >= mark), None)
                finals.append(r["evals"][-1]["return_mean"])
                trains.append(r["train_return"])
                walls.append(r["wall_s"])
                print(
                    f"{task:20} {precision:9} {seed:4} {finals[-1]:11.2f} {trains[-1]:15.2f} {first or '-':>14} {walls[-1]:7.1f}",
                    flush=True,
                )
            means[precision] = (statistics.mean(finals), statistics.mean(trains), statistics.median(walls))
        (f_eval, f_train, f_wall), (b_eval, b_train, b_wall) = means["fp32"], means["bf16"]
        print(
            f"{task}: mean final eval fp32 {f_eval:.2f} vs bf16 {b_eval:.2f}; mean last-100 train return {f_train:.2f}"
            f" vs {b_train:.2f}; median wall s {f_wall:.1f} vs {b_wall:.1f} (fp32 / bf16 {f_wall / b_wall:.2f})\n",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", nargs="+", default=["kernels", "learning"], choices=["kernels", "learning"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    args = parser.parse_args()
    if "kernels" in args.parts:
        kernels()
        print()
    if "learning" in args.parts:
        learning(args.seeds)


if __name__ == "__main__":
    main()
