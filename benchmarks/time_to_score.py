"""The protocol benchmarks/cartpole.py and benchmarks/breakout_minatar.py share: wall seconds and env steps to a
greedy-eval return, rlfw against Stable-Baselines3, each run in its own process with one torch
thread, one run at a time; medians over seeds and the ratio rlfw / SB3 (below 1: rlfw is faster).

Wall seconds are measured inside each process around training, evaluations included (rlfw's
``summary.json`` ``wall_seconds``; around ``model.learn`` for SB3), imports excluded.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Run = dict[str, Any]  # solved, env_steps, wall_s, steps_per_s


def off_sys_path() -> None:
    """Takes benchmarks/ off sys.path. A script's folder comes first there, and benchmarks/mujoco.py
    would stand in for the mujoco package that gymnasium's MuJoCo envs import."""
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]


def run_rlfw(*overrides: str) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "rlfw", *overrides, "threads=1", f"hydra.run.dir={tmp}"],
            capture_output=True,
            text=True,
        )
        if done.returncode:  # the run's own last lines say why
            raise RuntimeError(f"python -m rlfw {' '.join(overrides)} failed:\n{done.stderr[-3000:]}")
        summary = json.loads((Path(tmp) / "summary.json").read_text())
        curve = (Path(tmp) / "metrics.csv").read_text()
    return {
        "solved": summary["solved"],
        "env_steps": summary["env_steps"],
        "wall_s": summary["wall_seconds"],
        "steps_per_s": summary["steps_per_second"],
        "evals": summary["evals"],
        "train_return": summary["train_episode_return_last_100"],
        "curve": curve,
    }


def run_child(script: str, *args: str) -> Run:
    """``script --sb3 <args>`` in a child process, so that both sides start from a fresh interpreter."""
    out = subprocess.run([sys.executable, script, "--sb3", *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def learn_sb3(model: Any, budget: int, eval_env: Any, target: float, eval_every: int, episodes: int) -> None:
    """Trains an SB3 ``model`` until its greedy eval reaches ``target`` or ``budget`` env steps, and
    prints the run as one JSON line (what ``run_child`` reads)."""
    from stable_baselines3.common.callbacks import EvalCallback, StopTrainingOnRewardThreshold

    stop = StopTrainingOnRewardThreshold(reward_threshold=target, verbose=0)
    evaluator = EvalCallback(
        eval_env,
        log_path=tempfile.mkdtemp(),  # without one, SB3 keeps no eval returns
        callback_on_new_best=stop,
        n_eval_episodes=episodes,
        eval_freq=max(1, eval_every // model.get_env().num_envs),
        deterministic=True,
        verbose=0,
    )
    started = time.perf_counter()
    model.learn(total_timesteps=budget, callback=evaluator)
    wall = time.perf_counter() - started
    steps = model.num_timesteps
    result = {"solved": bool(evaluator.best_mean_reward >= target), "env_steps": steps, "wall_s": wall}
    evals = [float(sum(r) / len(r)) for r in evaluator.evaluations_results]
    print(json.dumps({**result, "steps_per_s": steps / wall, "evals": evals}))


def compare(
    algos: Sequence[str], seeds: Sequence[int], runners: dict[str, Callable[[str, int], Run]], target: str
) -> dict[str, dict[str, list[Run]]]:
    """Runs every algo x framework x seed one after another, prints each run and then, per algo, the
    medians and ratios; returns the runs."""
    print(f"{'algo':5} {'framework':9} {'seed':>4} {'solved':>6} {'env steps':>9} {'wall s':>7} {'steps/s':>8}")
    runs: dict[str, dict[str, list[Run]]] = {}
    for algo in algos:
        medians = {}
        for name, runner in runners.items():
            done = runs.setdefault(algo, {}).setdefault(name, [])
            for seed in seeds:
                r = runner(algo, seed)
                done.append(r)
                print(
                    f"{algo:5} {name:9} {seed:4d} {r['solved']!s:>6} {r['env_steps']:9d} {r['wall_s']:7.1f} {r['steps_per_s']:8.0f}",
                    flush=True,
                )
            medians[name] = {k: statistics.median(r[k] for r in done) for k in ("wall_s", "env_steps", "steps_per_s")}
            medians[name]["solved"] = sum(r["solved"] for r in done)
        rl, sb = medians["rlfw"], medians["sb3"]
        print(
            f"{algo}: median wall s to {target}: rlfw {rl['wall_s']:.1f} vs SB3 {sb['wall_s']:.1f} (ratio {rl['wall_s'] / sb['wall_s']:.2f}); "
            f"median env steps {rl['env_steps']:.0f} vs {sb['env_steps']:.0f}; "
            f"median steps/s {rl['steps_per_s']:.0f} vs {sb['steps_per_s']:.0f} (ratio {rl['steps_per_s'] / sb['steps_per_s']:.2f}); "
            f"solved {rl['solved']}/{len(seeds)} vs {sb['solved']}/{len(seeds)}\n",
            flush=True,
        )
    return runs
