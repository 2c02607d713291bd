"""What one update costs for each algorithm on the same network: Rainbow's parts against DQN's.

    python benchmarks/update_cost.py [--algos dqn,c51,rainbow] [--env cartpole] [--updates 400] [--blocks 5]

Each algo's parts are built from `algo=<algo> env=<env> seed=0` with its tuned values, the network
forced to the same encoder (the env's tuned DQN encoder); the replay is filled by acting at random, then
`rlfw.run.update.update` runs on its batches (loss, backward, the non-finite check, clipping, Adam, the
target rule, prioritized replay's feedback), one torch thread. Blocks of updates take turns between
the algos; prints milliseconds an update (the median block) and each algo's ratio to the first.
Batches are drawn before the timing starts, so sampling is left out of an update's time; each algo's
line gives a batch's drawing time beside it (prioritized replay's sum tree against uniform sampling).
"""

from __future__ import annotations

import argparse
import statistics
import time

import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

# isort: split
import torch

from rlfw.batch import to_device
from rlfw.clock import Clock
from rlfw.config.build import build_parts
from rlfw.config.preflight import composed
from rlfw.run.collector import Collector
from rlfw.run.timings import Timings
from rlfw.run.update import Learner, update

CPU = torch.device("cpu")


def learner_and_batches(algo: str, env: str, updates: int) -> tuple[Learner, list, float]:
    """The algo's learner, ``updates`` batches from its replay, and the seconds drawing them took."""
    hidden = composed("algo=dqn", f"env={env}")["network"]["encoder"]
    cfg = composed(f"algo={algo}", f"env={env}", "seed=0", f"network.encoder.hidden={hidden['hidden']}")
    torch.manual_seed(0)
    p = build_parts(cfg)
    collector = Collector(
        p.env.make(cfg["num_envs"]), p.net, p.explore, p.replay, p.env.spec, Clock(), Timings(), 0, CPU
    )
    collector.collect(max(2_000, cfg["replay"]["learning_starts"]))
    optimizer = p.optim.build(p.net, p.loss)
    learner = Learner(
        p.net,
        p.target_net,
        p.loss,
        p.target,
        optimizer,
        None,
        lambda loss: loss.backward(),
        p.replay.feedback,
        clip=cfg["trainer"]["gradient_clip_val"],
    )
    batches, started = [], time.perf_counter()
    while len(batches) < updates:
        batches += [to_device(b, CPU) for b in p.replay.batches(p.net)]
    return learner, batches[:updates], (time.perf_counter() - started) / len(batches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algos", default="dqn,c51,rainbow")
    parser.add_argument("--env", default="cartpole")
    parser.add_argument("--updates", type=int, default=400)
    parser.add_argument("--blocks", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    algos = args.algos.split(",")
    made = {algo: learner_and_batches(algo, args.env, args.updates) for algo in algos}
    times: dict[str, list[float]] = {algo: [] for algo in algos}
    for _ in range(args.blocks):
        for algo in algos:
            learner, batches, _ = made[algo]
            started = time.perf_counter()
            for i, batch in enumerate(batches):
                update(learner, batch, i + 1)
            times[algo].append((time.perf_counter() - started) / len(batches) * 1e3)
    first = statistics.median(times[algos[0]])
    print(f"env={args.env}, one torch thread, median of {args.blocks} blocks of {args.updates} updates:")
    for algo in algos:
        ms = statistics.median(times[algo])
        print(
            f"  {algo:10} {ms:6.3f} ms an update  {ms / first:5.2f}x {algos[0]}  (drawing a batch: {made[algo][2] * 1e3:.3f} ms)"
        )


if __name__ == "__main__":
    main()
