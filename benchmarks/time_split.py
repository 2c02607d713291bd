"""Where an env step goes: stacked bars of each run's phases (act, env, update, other; evaluation left
out), in microseconds per training env step, from the runs' own ``time:`` figures (summary.json's
``time_seconds``).

    python -m rlfw algo=ppo env=halfcheetah total_env_steps=20480 eval.every=20480 hydra.run.dir=<run>
    python benchmarks/time_split.py <run> [<run> ...] --labels before after --out time_split.png

Run each on a quiet machine; compare runs made on one machine only.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

PHASES = ("act", "env", "update", "other")


def per_step(run: Path) -> dict[str, float]:
    summary = json.loads((run / "summary.json").read_text())
    return {p: 1e6 * summary["time_seconds"][p] / summary["env_steps"] for p in PHASES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--labels", nargs="+")
    parser.add_argument("--out", type=Path, default=Path("time_split.png"))
    args = parser.parse_args()
    labels = args.labels or [run.name for run in args.runs]
    splits = [per_step(run) for run in args.runs]
    for label, split in zip(labels, splits, strict=True):
        parts = ", ".join(f"{p} {us:.0f}" for p, us in split.items())
        print(f"{label}: {sum(split.values()):.0f} us per env step ({parts})")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 1 + 0.6 * len(splits)))
    left = [0.0] * len(splits)
    for phase in PHASES:
        widths = [split[phase] for split in splits]
        ax.barh(labels, widths, left=left, label=phase)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.set_xlabel("microseconds per training env step")
    ax.invert_yaxis()
    ax.legend(ncol=len(PHASES), loc="upper center", bbox_to_anchor=(0.5, -0.45 if len(splits) < 3 else -0.3))
    fig.tight_layout()
    fig.savefig(args.out, dpi=120, bbox_inches="tight")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
