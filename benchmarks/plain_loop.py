"""What the run around the parts costs: an rlfw run against rlfw's own parts in a plain loop, for DQN
on CartPole, PPO on HalfCheetah and SAC on Pendulum (each with its shipped values).

    python benchmarks/plain_loop.py [--cases dqn,ppo,sac] [--repeats 3] [--steps N]

Both sides build the same parts from `algo=<algo> env=<env> seed=0` (the collector, the replay, the
loss, the optimizer, the target rule) and train the same env steps with the same updates. The run
goes through `rlfw.run.train` (Lightning, rlfw.run.update, the non-finite guard, metrics, progress)
with `stop_when_solved=false`, checkpoints off and one eval episode at the end; the plain loop
collects, then per batch: loss, the replay's feedback, backward, the gradient norm, clipping, the
optimizer step, the target rule (when the loss says so: TD3's delayed targets). The learning-rate
schedule is left out of the plain loop (one scalar per update). Each run is a fresh process, the two
take turns. Prints each run's training seconds (set-up left out; the run's: its summary's
wall_seconds), medians and the ratio run / plain (the goal: at most 1.1). Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from time_to_score import off_sys_path, run_rlfw

CASES = {  # name: (overrides, default env steps)
    "dqn": (["algo=dqn", "env=cartpole", "seed=0"], 30_000),
    "ppo": (["algo=ppo", "env=halfcheetah", "seed=0"], 20_480),
    "sac": (["algo=sac", "env=pendulum", "seed=0"], 4_000),
}


def plain(case: str, steps: int) -> float:
    """Training seconds of rlfw's parts in a plain loop (set-up left out)."""
    off_sys_path()
    import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

    # isort: split
    import torch

    from rlfw.batch import to_device
    from rlfw.clock import Clock
    from rlfw.config.build import build_parts
    from rlfw.config.preflight import composed
    from rlfw.run.collector import Collector
    from rlfw.run.timings import Timings

    cfg = composed(*CASES[case][0])
    torch.set_num_threads(1)  # as run_rlfw's threads=1
    torch.manual_seed(cfg["seed"])
    p = build_parts(cfg)
    clock = Clock()
    envs = p.env.make(cfg["num_envs"])
    collector = Collector(
        envs, p.net, p.explore, p.replay, p.env.spec, clock, Timings(), cfg["seed"], torch.device("cpu")
    )
    optimizer = p.optim.build(p.net, p.loss)
    params = [q for group in optimizer.param_groups for q in group["params"]]
    clip, updates = cfg["trainer"]["gradient_clip_val"], 0
    started = time.perf_counter()
    while clock.env_steps < steps:
        collector.collect(p.replay.collect_steps, steps)
        if not p.replay.ready():
            continue
        for batch in p.replay.batches(p.net):
            out = p.loss(to_device(batch, torch.device("cpu")), p.net, p.target_net)
            loss = sum(v for k, v in out.items() if k.startswith("loss_"))
            p.replay.feedback(batch)
            loss.backward()
            norm = torch.nn.utils.get_total_norm([q.grad for q in params if q.grad is not None])
            if not (torch.isfinite(loss) and torch.isfinite(norm)):
                raise RuntimeError(f"not finite at update {updates + 1}")
            if clip:
                torch.nn.utils.clip_grads_with_norm_(params, clip, norm)
            optimizer.step()
            optimizer.zero_grad()
            updates += 1
            if p.target_net is not None and (p.loss.targets_with is None or p.loss.targets_with in out):
                p.target.step(p.net, p.target_net, updates)
    return time.perf_counter() - started


def one(side: str, case: str, steps: int) -> float:
    """One run in a fresh process: its training seconds."""
    if side == "run":
        overrides = ("stop_when_solved=false", f"eval.every={10 * steps}", "eval.episodes=1")
        checkpoints_off = ("checkpoint.every=null", "checkpoint.every_s=null")
        return run_rlfw(*CASES[case][0], f"total_env_steps={steps}", *overrides, *checkpoints_off)["wall_s"]
    out = subprocess.run(
        [sys.executable, __file__, "--plain", case, "--steps", str(steps)], check=True, capture_output=True, text=True
    )
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=None, help="env steps per run (default: each case's own)")
    parser.add_argument("--plain", help=argparse.SUPPRESS)  # one plain loop of this case, in this process
    args = parser.parse_args()
    if args.plain:
        print(plain(args.plain, args.steps or CASES[args.plain][1]))
        return
    for case in args.cases.split(","):
        steps = args.steps or CASES[case][1]
        seconds: dict[str, list[float]] = {"plain": [], "run": []}
        print(f"{' '.join(CASES[case][0])}, {steps:,} env steps: a plain loop vs an rlfw run, taking turns:")
        for i in range(args.repeats):
            for side in seconds:
                seconds[side].append(one(side, case, steps))
                print(f"  repeat {i + 1} {side:5} {seconds[side][-1]:6.1f} s training", flush=True)
        median = {k: statistics.median(v) for k, v in seconds.items()}
        print(
            f"  medians: plain loop {median['plain']:.1f} s, rlfw run {median['run']:.1f} s:"
            f" ratio {median['run'] / median['plain']:.3f} (run / plain; goal <= 1.1)",
            flush=True,
        )


if __name__ == "__main__":
    main()
