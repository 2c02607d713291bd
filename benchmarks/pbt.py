"""Population-based training on DQN CartPole (``search=pbt_dqn_cartpole``): rlfw's PBT sweeper, the same 8
members trained with their first values and no PBT, and Ray Tune's PopulationBasedTraining on the same
task, values and budget (``benchmarks/pbt_tune.py``), for each seed of the whole search.

    python benchmarks/pbt.py --out /tmp/pbt --seeds 0 1 2 [--tune-python /path/to/venv-with-ray-tune/bin/python]

Each search runs on the joblib launcher (two members side by side on two cores); Tune runs two trials
at a time too. A search whose folder holds a finished result is read, not run again. Prints, per
search: each member's final greedy eval return (10 episodes at 100k env steps), their median and best,
the wall seconds and the disk the sweep folder takes (hard-linked copies counted once); then the
medians over the searches and the ratio of PBT's median to the fixed members' median.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rlfw.pbt.folders import disk_use

SEARCH = ["-m", "search=pbt_dqn_cartpole", "hydra/launcher=joblib"]


def rlfw_search(folder: Path, seed: int, *overrides: str) -> dict:
    """One search into ``folder`` (or its result, when it has finished): the members' finals and costs."""
    result = folder / "bench.json"
    if not result.is_file():
        start = time.perf_counter()
        command = [sys.executable, "-m", "rlfw", *SEARCH, f"hydra.sweeper.seed={seed}", *overrides]
        subprocess.run([*command, f"hydra.sweep.dir={folder}"], check=True, capture_output=True)
        wall = time.perf_counter() - start
        finals = [json.loads(p.read_text())["eval_return_mean"] for p in sorted(folder.glob("member_*/summary.json"))]
        result.write_text(json.dumps({"finals": finals, "wall_seconds": wall, "disk_bytes": disk_use(folder)}))
    return json.loads(result.read_text())


def tune_search(folder: Path, seed: int, python: str) -> dict:
    result = folder / "tune_result.json"
    if not result.is_file():
        script = Path(__file__).with_name("pbt_tune.py")
        subprocess.run(
            [python, str(script), "--seed", str(seed), "--out", str(folder)], check=True, capture_output=True
        )
        data = json.loads(result.read_text())
        result.write_text(json.dumps({**data, "disk_bytes": disk_use(folder)}))
    return json.loads(result.read_text())


def line(name: str, seed: int, r: dict, generations: int) -> str:
    finals = r["finals"]
    per_gen = f"{r['wall_seconds'] / generations:6.1f} s, {r['disk_bytes'] / generations / 2**20:5.1f} MiB a generation"
    return (
        f"{name:<6} seed {seed}: median {statistics.median(finals):6.1f}  best {max(finals):6.1f}  "
        f"[{', '.join(f'{f:.0f}' for f in finals)}]  {r['wall_seconds']:6.0f} s ({per_gen})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--tune-python", help="a Python with ray[tune]==2.60.0 and rlfw installed")
    args = parser.parse_args()
    rows: dict[str, list[float]] = {"pbt": [], "fixed": [], "tune": []}
    for seed in args.seeds:
        runs = {
            "pbt": rlfw_search(args.out / f"pbt_s{seed}", seed),
            "fixed": rlfw_search(args.out / f"fixed_s{seed}", seed, "hydra.sweeper.interval=100000"),
        }
        if args.tune_python:
            runs["tune"] = tune_search(args.out / f"tune_s{seed}", seed, args.tune_python)
        for name, r in runs.items():
            print(line(name, seed, r, 1 if name == "fixed" else 10))
            rows[name].append(statistics.median(r["finals"]))
    print("\nmedian final return over the searches (each search's median member):")
    for name, medians in rows.items():
        if medians:
            print(f"  {name:<6} {statistics.median(medians):6.1f}  ({', '.join(f'{m:.1f}' for m in medians)})")
    wins = sum(p > f for p, f in zip(rows["pbt"], rows["fixed"], strict=True))
    print(f"PBT's median above the fixed members' in {wins} of {len(rows['pbt'])} searches")


if __name__ == "__main__":
    main()
