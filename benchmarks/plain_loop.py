"""What Lightning's loop costs: DQN on CartPole as an rlfw run against rlfw's own parts in a plain loop.

    python benchmarks/plain_loop.py [--repeats 3] [--steps 30000]

Both sides build the same parts from `algo=dqn env=cartpole seed=0` (the collector, the replay, the
loss, the optimizer, the target rule) and train the same env steps with the same updates. The run
goes through `rlfw.run.train` (Lightning's automatic optimization, the non-finite guard, metrics,
progress), with `stop_when_solved=false`, checkpoints off and one eval episode at the end; the plain
loop collects, then per batch: loss, backward, the gradient norm, clipping, Adam, the target rule.
Each run is a fresh process, the two take turns. Prints each run's training seconds (set-up left out;
the run's: its summary's wall_seconds), medians and the ratio plain / run. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from time_to_score import run_rlfw

OVERRIDES = ["algo=dqn", "env=cartpole", "seed=0"]


def plain(steps: int) -> float:
    """Training seconds of rlfw's parts in a plain loop (set-up left out)."""
    import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

    # isort: split
    import torch

    from rlfw.batch import to_device
    from rlfw.config.build import build_parts
    from rlfw.config.preflight import composed
    from rlfw.run.collector import Collector

    cfg = composed(*OVERRIDES)
    torch.set_num_threads(cfg["threads"])
    torch.manual_seed(cfg["seed"])
    p = build_parts(cfg)
    collector = Collector(p.env.make(cfg["num_envs"]), p.net, p.explore, p.replay, cfg["seed"], torch.device("cpu"))
    optimizer = p.optim.build(p.net, p.loss)
    params = [q for group in optimizer.param_groups for q in group["params"]]
    clip, updates = cfg["trainer"]["gradient_clip_val"], 0
    started = time.perf_counter()
    while collector.env_steps < steps:
        collector.collect(p.replay.collect_steps, steps)
        if not p.replay.ready():
            continue
        for batch in p.replay.batches(p.net):
            out = p.loss(to_device(batch, torch.device("cpu")), p.net, p.target_net)
            loss = sum(v for k, v in out.items() if k.startswith("loss_"))
            loss.backward()
            norm = torch.nn.utils.get_total_norm([q.grad for q in params if q.grad is not None])
            if not (torch.isfinite(loss) and torch.isfinite(norm)):
                raise RuntimeError(f"not finite at update {updates + 1}")
            torch.nn.utils.clip_grads_with_norm_(params, clip, norm)
            optimizer.step()
            optimizer.zero_grad()
            updates += 1
            p.target.step(p.net, p.target_net, updates)
    return time.perf_counter() - started


def one(side: str, steps: int) -> float:
    """One run in a fresh process: its training seconds."""
    if side == "run":
        overrides = ("stop_when_solved=false", f"eval.every={10 * steps}", "eval.episodes=1")
        checkpoints_off = ("checkpoint.every=null", "checkpoint.every_s=null")
        return run_rlfw(*OVERRIDES, f"total_env_steps={steps}", *overrides, *checkpoints_off)["wall_s"]
    out = subprocess.run(
        [sys.executable, __file__, "--plain", "--steps", str(steps)], check=True, capture_output=True, text=True
    )
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=30_000)
    parser.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)  # one plain loop, in this process
    args = parser.parse_args()
    if args.plain:
        print(plain(args.steps))
        return
    seconds: dict[str, list[float]] = {"plain": [], "run": []}
    print(f"DQN on CartPole, {args.steps:,} env steps: rlfw's parts in a plain loop vs an rlfw run, taking turns:")
    for i in range(args.repeats):
        for side in seconds:
            seconds[side].append(one(side, args.steps))
            print(f"  repeat {i + 1} {side:5} {seconds[side][-1]:6.1f} s training", flush=True)
    median = {k: statistics.median(v) for k, v in seconds.items()}
    print(
        f"medians: plain loop {median['plain']:.1f} s, rlfw run {median['run']:.1f} s:"
        f" ratio {median['plain'] / median['run']:.3f} (plain / run)"
    )


if __name__ == "__main__":
    main()
