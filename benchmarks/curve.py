"""A run's return curve as a CSV and a PNG: training episode return and greedy eval return against env steps.

    python benchmarks/curve.py <run folder> <out stem>     # writes <out stem>.csv and <out stem>.png

The training return is metrics.csv's train/episode_return (the mean of the last 20 training
episodes at each train row); the eval return is each evaluation's mean and std over its episodes.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import yaml


def main() -> None:
    run, stem = Path(sys.argv[1]), Path(sys.argv[2])
    with open(run / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    summary = json.loads((run / "summary.json").read_text())
    episodes = yaml.safe_load((run / "resolved.yaml").read_text())["eval"]["episodes"]
    train = [(int(r["step"]), float(r["train/episode_return"])) for r in rows if r.get("train/episode_return")]
    evals = [(e["env_steps"], e["return_mean"], e["return_std"]) for e in summary["evals"]]
    with open(stem.with_suffix(".csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["env_steps", "train_episode_return_last20", "eval_return_mean", "eval_return_std"])
        points = {s: [r, "", ""] for s, r in train}
        for s, mean, std in evals:
            points.setdefault(s, ["", "", ""])[1:] = [mean, std]
        writer.writerows([s, *values] for s, values in sorted(points.items()))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(*zip(*train, strict=True), label="training episodes (mean of the last 20)")
    steps, means, stds = zip(*evals, strict=True)
    ax.errorbar(
        steps, means, yerr=stds, fmt="o-", capsize=3, label=f"greedy eval ({episodes} episodes each, mean ± std)"
    )
    ax.set_xlabel("env steps")
    ax.set_ylabel("return")
    ax.set_title(
        f"{summary['algo']} on {summary['env']}: {summary['env_steps']:,} env steps in {summary['wall_seconds'] / 3600:.2f} h"
    )
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(stem.with_suffix(".png"), dpi=120)
    print(f"wrote {stem.with_suffix('.csv')} and {stem.with_suffix('.png')}")


if __name__ == "__main__":
    main()
