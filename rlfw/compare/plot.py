"""``compare.png``: each variant's greedy eval return over env steps or wall seconds, with a 95%
bootstrap band over its runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rlfw.compare.runs import Run
from rlfw.compare.stats import mean_band

NOTE = "Runs that ended early (solved) keep their last evaluation on the curve after it."


def curves(runs: list[Run], x: str, metric: str = "return_mean") -> tuple[np.ndarray, np.ndarray]:
    """The runs' eval ``metric`` (the return by default) on one grid of ``x``: each run's latest
    evaluation at or before each point, from the point where every run has been evaluated once.
    Returns (grid, [runs, points])."""
    evals = [sorted(r.summary["evals"], key=lambda e: e[x]) for r in runs]
    start = max(e[0][x] for e in evals)
    grid = np.array(sorted({e[x] for run in evals for e in run if e[x] >= start}))
    values = np.empty((len(runs), len(grid)))
    for i, run in enumerate(evals):
        at = np.array([e[x] for e in run])
        values[i] = np.array([e[metric] for e in run])[np.searchsorted(at, grid, side="right") - 1]
    return grid, values


def plot(groups: dict[str, list[Run]], x: str, path: Path, metric: str = "return_mean") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    for label, runs in groups.items():
        grid, values = curves(runs, x, metric)
        mean, low, high = mean_band(values)
        (line,) = ax.plot(grid, mean, label=f"{label} ({len(runs)} run{'s' * (len(runs) > 1)})")
        ax.fill_between(grid, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    bars = {
        r.summary["solved_return"]
        for runs in groups.values()
        for r in runs
        if r.summary.get("solved_return") is not None and metric == "return_mean"
    }
    for bar in bars:
        ax.axhline(bar, color="gray", linestyle="--", linewidth=1)
    envs = sorted({r.summary["env"] for runs in groups.values() for r in runs})
    what = "return" if metric == "return_mean" else metric
    ax.set_title(f"{', '.join(envs)}: greedy eval {what}, mean and 95% bootstrap band over runs")
    ax.set_xlabel("env steps" if x == "env_steps" else "wall seconds (training)")
    ax.set_ylabel(f"eval {what}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.text(0.01, 0.01, NOTE + (" Dashed: the env's solved return." if bars else ""), fontsize="x-small", color="gray")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)
