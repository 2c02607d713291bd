"""bf16 against fp32 matrix products on the CPU (``network.precision``): speed, and learning with each.

    pip install -e ".[bench,minatar,mujoco]" && python benchmarks/bf16.py [--parts kernels linear learning]
        [--tasks ...] [--seeds 0 1 2] [--jobs 1]

- kernels: rlfw's Nature CNN encoder (fp32, then bf16) on 4 stacked 84x84 frames: a no-grad forward at
  the batch sizes that act (1 env for DQN, 8 for PPO) and a forward and backward at the batch sizes that
  learn (DQN's 32, PPO's 256); torch threads: every core, as on Atari. Medians of 7 timings, the two
  precisions taking turns.
- linear: rlfw's ``mlp`` encoder, two square layers of 64 to 512 units, forward and backward at 1 to
  2,560 rows, one torch thread: where bf16 starts to pay (``rlfw.network.precision.BF16_FROM_MACS``).
- learning: the same runs with ``network.precision=fp32`` and ``=bf16``, seed by seed, each with one
  torch thread (benchmarks/time_to_score.py's ``run_rlfw``; ``--jobs 2`` runs two side by side): DQN on
  Catch (20k env steps), PPO on Breakout-MinAtar (300k), SAC, TD3 and DDPG on Pendulum (20k) and on
  HalfCheetah (50k), each over its whole budget. Prints each run's final greedy eval and last-100
  training return, the env steps where greedy eval first reached the task's mark, and means over seeds.

On a CPU without bf16 instructions oneDNN emulates bf16: the kernels parts show what that costs.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from time_to_score import run_rlfw

OFF_POLICY = ["stop_when_solved=false"]
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
    **{
        f"pendulum {algo}": (
            [f"algo={algo}", "env=pendulum", "total_env_steps=20000", "eval.every=5000", *OFF_POLICY],
            -200.0,
        )
        for algo in ("sac", "td3", "ddpg")
    },
    **{
        f"halfcheetah {algo}": (
            [f"algo={algo}", "env=halfcheetah", "total_env_steps=50000", "eval.every=10000", *OFF_POLICY],
            3000.0,
        )
        for algo in ("sac", "td3", "ddpg")
    },
}
SHAPES = [("forward", 1), ("forward", 8), ("forward+backward", 32), ("forward+backward", 256)]


def turns(once: Callable[[object], None], settings: list[object], repeat: int) -> list[float]:
    """Median ms per call of ``once(setting)`` for each setting: 7 rounds, the settings taking turns."""
    times: list[list[float]] = [[] for _ in settings]
    for _ in range(7):
        for i, setting in enumerate(settings):
            once(setting)  # warm: oneDNN makes its kernels for this shape and precision
            started = time.perf_counter()
            for _ in range(repeat):
                once(setting)
            times[i].append((time.perf_counter() - started) / repeat * 1000)
    return [statistics.median(t) for t in times]


def kernels() -> None:
    import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

    # isort: split
    import gymnasium as gym
    import numpy as np
    import torch

    from rlfw.env.spec import EnvSpec
    from rlfw.machine import cores, native_bf16
    from rlfw.network.encoder.cnn import NatureCNN
    from rlfw.network.precision import Precision

    torch.set_num_threads(cores())
    torch.manual_seed(0)
    spec = EnvSpec("Pong", (4, 84, 84), gym.spaces.Discrete(6), None, np.dtype(np.uint8), 4)
    cnns = [NatureCNN(spec, precision=Precision(setting)) for setting in ("fp32", "bf16")]
    cnns[1].load_state_dict(cnns[0].state_dict())
    print(f"Nature CNN on [B, 4, 84, 84] uint8, {cores()} torch threads; bf16 instructions: {native_bf16()}")
    for what, batch in SHAPES:
        pixels = torch.randint(0, 256, (batch, 4, 84, 84), dtype=torch.uint8)

        def once(cnn: object, what: str = what, pixels: torch.Tensor = pixels) -> None:
            if what == "forward":
                with torch.no_grad():
                    cnn(pixels)  # type: ignore[operator]
            else:
                cnn(pixels).sum().backward()  # type: ignore[operator]

        fp32, bf16 = turns(once, cnns, max(3, 256 // batch))  # type: ignore[arg-type]
        print(f"  {what:16} batch {batch:3}: fp32 {fp32:7.2f} ms, bf16 {bf16:7.2f} ms, fp32 / bf16 {fp32 / bf16:.2f}")


def linear() -> None:
    import rlfw  # noqa: F401

    # isort: split
    import gymnasium as gym
    import torch

    from rlfw.env.spec import EnvSpec
    from rlfw.machine import native_bf16
    from rlfw.network.encoder.mlp import MLP
    from rlfw.network.precision import BF16_FROM_MACS, Precision

    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(f"mlp encoder, two square relu layers, forward+backward, 1 torch thread; bf16 instructions: {native_bf16()}")
    print(f"  auto's rule: bf16 from {BF16_FROM_MACS:,} multiply-adds a layer (rows x units x units)")
    for width in (64, 128, 256, 512):
        spec = EnvSpec("Vec", (width,), gym.spaces.Discrete(2), None)
        mlps = [MLP(spec, [width, width], "relu", Precision(setting)) for setting in ("fp32", "bf16")]
        mlps[1].load_state_dict(mlps[0].state_dict())
        for rows in (1, 64, 256, 2560):
            x = torch.randn(rows, width)

            def once(mlp: object, x: torch.Tensor = x) -> None:
                mlp(x).sum().backward()  # type: ignore[operator]

            fp32, bf16 = turns(once, mlps, max(3, 2560 // rows // 4))  # type: ignore[arg-type]
            macs = rows * width * width
            print(
                f"  {width:3} units, {rows:4} rows ({macs / 1e6:6.1f}M multiply-adds): fp32 {fp32:7.3f} ms,"
                f" bf16 {bf16:7.3f} ms, fp32 / bf16 {fp32 / bf16:.2f}"
            )


def learning(tasks: list[str], seeds: list[int], against: str, jobs: int) -> None:
    """Every task's runs with fp32 and with ``against`` (auto or bf16), ``jobs`` at a time."""
    runs = [(task, precision, seed) for task in tasks for precision in ("fp32", against) for seed in seeds]

    def one(run: tuple[str, str, int]) -> dict:
        task, precision, seed = run
        return run_rlfw(*TASKS[task][0], f"network.precision={precision}", f"seed={seed}")

    print(f"{jobs} run(s) side by side, one torch thread each")
    print("task                 precision seed  final eval  train last-100  first at mark  wall s")
    with ThreadPoolExecutor(jobs) as pool:
        results = dict(zip(runs, pool.map(one, runs), strict=True))
    for task in tasks:
        mark, means = TASKS[task][1], {}
        for precision in ("fp32", against):
            finals, trains, walls = [], [], []
            for seed in seeds:
                r = results[(task, precision, seed)]
                first = next((e["env_steps"] for e in r["evals"] if e["return_mean"] >= mark), None)
                finals.append(r["evals"][-1]["return_mean"])
                trains.append(r["train_return"])
                walls.append(r["wall_s"])
                print(
                    f"{task:20} {precision:9} {seed:4} {finals[-1]:11.2f} {trains[-1]:15.2f} {first or '-':>14} {walls[-1]:7.1f}",
                    flush=True,
                )
            means[precision] = (statistics.mean(finals), statistics.mean(trains), statistics.median(walls))
        (f_eval, f_train, f_wall), (b_eval, b_train, b_wall) = means["fp32"], means[against]
        print(
            f"{task}: mean final eval fp32 {f_eval:.2f} vs {against} {b_eval:.2f}; mean last-100 train return"
            f" {f_train:.2f} vs {b_train:.2f}; median wall s {f_wall:.1f} vs {b_wall:.1f}"
            f" (fp32 / {against} {f_wall / b_wall:.2f})\n",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parts = ["kernels", "linear", "learning"]
    parser.add_argument("--parts", nargs="+", default=parts, choices=parts)
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--against", default="auto", choices=["auto", "bf16"], help="the setting fp32 is compared with")
    parser.add_argument("--jobs", type=int, default=1, help="learning runs side by side (one torch thread each)")
    args = parser.parse_args()
    if "kernels" in args.parts:
        kernels()
        print()
    if "linear" in args.parts:
        linear()
        print()
    if "learning" in args.parts:
        learning(args.tasks, args.seeds, args.against, args.jobs)


if __name__ == "__main__":
    main()
