"""`compile=true` against eager: the same rlfw run both ways, training seconds with the compile included.

    python benchmarks/compile.py [--cases dqn,ppo,sac] [--repeats 3] [--steps N] [--set KEY=VALUE ...]

Each case is `algo=<algo> env=<env> seed=0` with its shipped values, `stop_when_solved=false`, no
checkpoints and one eval episode at the end, so both sides do the same env steps and updates. Each run
is a fresh process; the two take turns. A run's training seconds (its summary's wall_seconds) include
the compile, which happens in its first acts and updates; Inductor's on-disk cache makes later
processes compile faster, so the first compiled run is printed apart and the medians are over the
rest. `--set trainer.accelerator=gpu` runs it on a GPU (compile then uses CUDA graphs:
rlfw/run/compiled.py). Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics

from time_to_score import run_rlfw

CASES = {  # name: (overrides, default env steps)
    "dqn": (["algo=dqn", "env=cartpole", "seed=0"], 30_000),
    "ppo": (["algo=ppo", "env=halfcheetah", "seed=0"], 20_480),
    "sac": (["algo=sac", "env=pendulum", "seed=0"], 4_000),
    "sac_halfcheetah": (["algo=sac", "env=halfcheetah", "seed=0", "replay.learning_starts=1000"], 6_000),
}


def one(case: str, steps: int, compiled: bool, extra: list[str]) -> dict:
    overrides = [
        *CASES[case][0],
        f"total_env_steps={steps}",
        f"compile={str(compiled).lower()}",
        "stop_when_solved=false",
        f"eval.every={10 * steps}",
        "eval.episodes=1",
        "checkpoint.every=null",
        "checkpoint.every_s=null",
        *extra,
    ]
    return run_rlfw(*overrides)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="dqn,ppo,sac", help="comma-separated: " + ", ".join(CASES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=None, help="env steps per run (default: each case's own)")
    parser.add_argument("--set", nargs="*", default=[], help="overrides added to every run")
    args = parser.parse_args()
    for case in args.cases.split(","):
        steps = args.steps or CASES[case][1]
        print(f"{' '.join(CASES[case][0] + args.set)}, {steps:,} env steps: eager vs compile=true, taking turns:")
        first = one(case, steps, True, args.set)  # fills Inductor's cache
        print(f"  first compiled run (cold cache) {first['wall_s']:6.1f} s training", flush=True)
        seconds: dict[str, list[float]] = {"eager": [], "compiled": []}
        for i in range(args.repeats):
            for side in seconds:
                seconds[side].append(one(case, steps, side == "compiled", args.set)["wall_s"])
                print(f"  repeat {i + 1} {side:8} {seconds[side][-1]:6.1f} s training", flush=True)
        median = {k: statistics.median(v) for k, v in seconds.items()}
        print(
            f"  medians: eager {median['eager']:.1f} s ({steps / median['eager']:,.0f} env steps/s),"
            f" compiled {median['compiled']:.1f} s ({steps / median['compiled']:,.0f} env steps/s):"
            f" speed-up {median['eager'] / median['compiled']:.2f}x (compile included)",
            flush=True,
        )


if __name__ == "__main__":
    main()
