"""``python -m rlfw.compare <run folders or globs> [--by KEY ...] [--x env_steps|wall_seconds] [--out DIR]``

Reads finished runs (a sweep folder counts as its runs), groups them into variants by the keys that
differ between them (seeds pooled) or by ``--by``, and writes into ``--out``:
``compare.png`` (greedy eval return against env steps or wall seconds: each variant's mean over its
runs, with a 95% bootstrap band), ``compare.md`` and ``compare.csv`` (final return mean, std, IQM with
its 95% interval, runs solved, median env steps and wall seconds to the env's solved return).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from rlfw.errors import ConfigError
from rlfw.runs import Run, find_runs, group, variant_keys
from rlfw.stats import mean_band, row

NOTE = "Runs that ended early (solved) keep their last evaluation on the curve after it."


def table(groups: dict[str, list[Run]]) -> list[dict[str, Any]]:
    return [row(label, runs) for label, runs in groups.items()]


def markdown(rows: list[dict[str, Any]]) -> str:
    def number(value: float, digits: int = 1) -> str:
        return "n/a" if math.isnan(value) else f"{value:,.{digits}f}"

    lines = [
        "| variant | runs | final return (mean ± std) | IQM [95% CI] | solved | env steps to solve (median) | wall s to solve (median) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['runs']} | {number(r['final_return_mean'])} ± {number(r['final_return_std'])}"
            f" | {number(r['final_return_iqm'])} [{number(r['iqm_ci_low'])}, {number(r['iqm_ci_high'])}]"
            f" | {r['solved_runs']}/{r['runs']} | {number(r['env_steps_to_solve'], 0)} | {number(r['wall_seconds_to_solve'])} |"
        )
    return "\n".join(lines) + "\n"


def write_table(rows: list[dict[str, Any]], out: Path, stem: str) -> str:
    """``<stem>.md`` and ``<stem>.csv`` in ``out``; returns the markdown."""
    out.mkdir(parents=True, exist_ok=True)
    text = markdown(rows)
    (out / f"{stem}.md").write_text(text)
    with open(out / f"{stem}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return text


def curves(runs: list[Run], x: str) -> tuple[np.ndarray, np.ndarray]:
    """The runs' eval returns on one grid of ``x``: each run's latest evaluation at or before each
    point, from the point where every run has been evaluated once. Returns (grid, [runs, points])."""
    evals = [sorted(r.summary["evals"], key=lambda e: e[x]) for r in runs]
    start = max(e[0][x] for e in evals)
    grid = np.array(sorted({e[x] for run in evals for e in run if e[x] >= start}))
    values = np.empty((len(runs), len(grid)))
    for i, run in enumerate(evals):
        at = np.array([e[x] for e in run])
        values[i] = np.array([e["return_mean"] for e in run])[np.searchsorted(at, grid, side="right") - 1]
    return grid, values


def plot(groups: dict[str, list[Run]], x: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    for label, runs in groups.items():
        grid, values = curves(runs, x)
        mean, low, high = mean_band(values)
        line, = ax.plot(grid, mean, label=f"{label} ({len(runs)} run{'s' * (len(runs) > 1)})")
        ax.fill_between(grid, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    bars = {r.summary.get("solved_return") for runs in groups.values() for r in runs} - {None}
    for bar in bars:
        ax.axhline(bar, color="gray", linestyle="--", linewidth=1)
    envs = sorted({r.summary["env"] for runs in groups.values() for r in runs})
    ax.set_title(f"{', '.join(envs)}: greedy eval return, mean and 95% bootstrap band over runs")
    ax.set_xlabel("env steps" if x == "env_steps" else "wall seconds (training)")
    ax.set_ylabel("eval return")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.text(0.01, 0.01, NOTE + (" Dashed: the env's solved return." if bars else ""), fontsize="x-small", color="gray")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path, dpi=120)
    plt.close(fig)


def compare(paths: list[str], by: list[str] | None, x: str, out: Path) -> str:
    runs = find_runs(paths)
    if by:
        unknown = [k for k in by if all(r.value(k) is None for r in runs)]
        if unknown:
            differ = ", ".join(variant_keys(runs)) or "none"
            raise ConfigError(f"--by {unknown[0]}: no run has this key; keys that differ between these runs: {differ}")
    groups = group(runs, by)
    text = write_table(table(groups), out, "compare")
    plot(groups, x, out / "compare.png")
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rlfw.compare", description=__doc__.split("\n\n")[1].replace("\n", " ").replace("``", ""))
    parser.add_argument("paths", nargs="+", help="run folders, sweep folders or globs")
    parser.add_argument("--by", nargs="+", metavar="KEY", help="group by these keys (default: the keys that differ)")
    parser.add_argument("--x", choices=["env_steps", "wall_seconds"], default="env_steps", help="the curve's x axis")
    parser.add_argument("--out", type=Path, default=Path("."), help="where compare.png/.md/.csv go (default: here)")
    args = parser.parse_args(argv)
    try:
        text = compare(args.paths, args.by, args.x, args.out)
    except ConfigError as err:
        print(f"rlfw.compare: {err}", file=sys.stderr)
        sys.exit(2)
    print(text, end="")
    print(f"wrote {args.out / 'compare.png'}, compare.md and compare.csv")


if __name__ == "__main__":
    main()
