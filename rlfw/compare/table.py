"""The comparison table: one row per variant (``rlfw.compare.stats.row``), as markdown and CSV."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from rlfw.compare.runs import Run
from rlfw.compare.stats import row


def table(groups: dict[str, list[Run]], metric: str = "return_mean") -> list[dict[str, Any]]:
    return [row(label, runs, metric) for label, runs in groups.items()]


def markdown(rows: list[dict[str, Any]], metric: str = "return_mean") -> str:
    def number(value: float, digits: int = 1 if metric == "return_mean" else 2) -> str:
        return "n/a" if math.isnan(value) else f"{value:,.{digits}f}"

    final = "final return" if metric == "return_mean" else f"final {metric}"
    lines = [
        f"| variant | runs | {final} (mean ± std) | IQM [95% CI] | best eval IQM [95% CI] | solved | env steps to solve (median) | wall s to solve (median) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['runs']} | {number(r['final_return_mean'])} ± {number(r['final_return_std'])}"
            f" | {number(r['final_return_iqm'])} [{number(r['iqm_ci_low'])}, {number(r['iqm_ci_high'])}]"
            f" | {number(r['best_iqm'])} [{number(r['best_ci_low'])}, {number(r['best_ci_high'])}]"
            f" | {r['solved_runs']}/{r['runs']} | {number(r['env_steps_to_solve'], 0)} | {number(r['wall_seconds_to_solve'], 1)} |"
        )
    return "\n".join(lines) + "\n"


def write_table(rows: list[dict[str, Any]], out: Path, stem: str, metric: str = "return_mean") -> str:
    """``<stem>.md`` and ``<stem>.csv`` in ``out``; returns the markdown."""
    out.mkdir(parents=True, exist_ok=True)
    text = markdown(rows, metric)
    (out / f"{stem}.md").write_text(text)
    with open(out / f"{stem}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return text
