"""A sweep under load: many short CartPole runs with the joblib launcher on this machine's cores.

    python benchmarks/sweep_load.py [--jobs 48] [--steps 20000]

Runs one job alone three times (its training time, ``wall_seconds`` in summary.json, is the solo
time), then the sweep of ``--jobs`` seeds with ``hydra/launcher=joblib`` (one worker per core, each
given its share of the cores), sampling the resident memory of the whole process tree every 0.2 s.
Prints whether every job and the sweep summary were written, the peak memory, and each job's
training time over the solo median: above 2x would mean the workers oversubscribe the cores.
Linux only (it reads /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def cpu_model() -> str:
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def tree_rss(root: int) -> int:
    """Resident bytes of ``root`` and all its descendants, from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, frontier = {root}, [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent == frontier[-1]]
        frontier.pop()
        tree.update(children)
        frontier += children
    total = 0
    for pid in tree:
        try:
            rss_pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue
        total += rss_pages * os.sysconf("SC_PAGE_SIZE")
    return total


def rlfw(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "rlfw", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=48)
    parser.add_argument("--steps", type=int, default=20_000)
    args = parser.parse_args()
    run = ("algo=ppo", "env=cartpole", f"total_env_steps={args.steps}", "stop_when_solved=false")
    out = Path(tempfile.mkdtemp(prefix="sweep_load_"))

    solo = []
    for i in range(3):
        process = rlfw(*run, "seed=0", f"hydra.run.dir={out / f'solo{i}'}")
        _, err = process.communicate()
        assert process.returncode == 0, err.decode()[-2000:]
        solo.append(json.loads((out / f"solo{i}" / "summary.json").read_text())["wall_seconds"])

    sweep = out / "sweep"
    started = time.monotonic()
    process = rlfw("-m", "hydra/launcher=joblib", *run, f"seed=range(0,{args.jobs})", f"hydra.sweep.dir={sweep}")
    peak = [0]

    def sample() -> None:
        while process.poll() is None:
            peak[0] = max(peak[0], tree_rss(process.pid))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample)
    sampler.start()
    _, err = process.communicate()
    sampler.join()
    wall = time.monotonic() - started
    assert process.returncode == 0, err.decode()[-2000:]

    summaries = [json.loads(p.read_text()) for p in sweep.glob("*/summary.json")]
    times = sorted(s["wall_seconds"] for s in summaries)
    base = statistics.median(solo)
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores; rlfw PPO on CartPole, {args.steps:,} env steps a job")
    print(f"solo training time (3 runs): {', '.join(f'{t:.1f}' for t in solo)} s, median {base:.1f} s")
    print(f"sweep of {args.jobs} jobs with joblib: {wall:.0f} s; jobs with a summary.json: {len(summaries)}")
    print(f"sweep summary written: {(sweep / 'summary.md').is_file()}")
    print(f"peak resident memory of the process tree: {peak[0] / 2**30:.2f} GiB")
    print(
        f"job training time: median {statistics.median(times):.1f} s, max {times[-1]:.1f} s;"
        f" over the solo median: median {statistics.median(times) / base:.2f}x, max {times[-1] / base:.2f}x"
    )


if __name__ == "__main__":
    main()
