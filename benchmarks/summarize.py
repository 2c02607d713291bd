"""Summarise the runs under a folder (a multirun's, say) as a markdown table, one row per algo/env.

python -m rlfw -m algo=ppo,dqn seed=0,1,2,3,4,5,6,7,8,9 hydra.sweep.dir=outputs/seeds
python benchmarks/summarize.py outputs/seeds
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def main(root: Path) -> None:
    groups = defaultdict(list)
    for path in sorted(root.rglob("summary.json")):
        s = json.loads(path.read_text())
        groups[(s["algo"], s["env"])].append(s)
    print(
        "| algo | env | runs | solved | env steps to stop (median, max) | wall s (median, max) | final eval return (min) |"
    )
    print("|---|---|---|---|---|---|---|")
    for (algo, env), runs in sorted(groups.items()):
        steps = [r["env_steps"] for r in runs]
        wall = [r["wall_seconds"] for r in runs]
        print(
            f"| {algo} | {env} | {len(runs)} | {sum(r['solved'] for r in runs)}/{len(runs)} "
            f"| {statistics.median(steps):,.0f}, {max(steps):,} | {statistics.median(wall):.1f}, {max(wall):.1f} "
            f"| {min(r['eval_return_mean'] for r in runs):.1f} |"
        )


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "outputs"))
