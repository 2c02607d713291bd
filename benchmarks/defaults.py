"""Every algorithm on every env family it supports, with the shipped values and no other flag: which
combinations have tuned values (conf/tuned/<algo>_<env>.yaml) and what one seed reaches within the
budget they ship (docs/results.md, "Every algorithm on every env family").

    python benchmarks/defaults.py                    # the sweeps this machine can run, then the table
    python benchmarks/defaults.py --families popgym  # one family's sweep, then the table
    python benchmarks/defaults.py --table            # the table from the runs already under --out

Each runnable family is one multirun, ``python -m rlfw -m algo=<algos> env=<envs> seed=0``; a run
stops once its greedy eval reaches the env's solved return. Families whose budgets are millions of env
steps (MinAtar, Atari, MuJoCo) are listed with their budget and not run: the results page cites
their separate benchmarks.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from rlfw.config.preflight import composed

CONF = Path(__file__).resolve().parent.parent / "conf"


@dataclass
class Family:
    name: str
    algos: list[str]
    envs: list[str]
    extra: tuple[str, ...] = ()  # more overrides: the sweep's (a POPGym task list), or a game to compose one run
    seen: str = ""  # where the results page has this family's runs: those not run here


FAMILIES = {
    "discrete": Family(
        "classic control, Discrete",
        ["dqn", "double_dqn", "c51", "rainbow", "a2c", "ppo", "ppo_lstm", "a2c_lstm"],
        ["cartpole", "acrobot"],
    ),
    "box": Family("classic control, Box", ["a2c", "ppo", "sac", "td3", "ddpg"], ["pendulum"]),
    "popgym": Family(
        "POPGym (memory)",
        ["ppo_lstm", "a2c_lstm"],
        ["popgym"],
        ("env.task=RepeatPreviousEasy,RepeatFirstEasy,PositionOnlyCartPoleEasy,CountRecallEasy",),
    ),
    "minatar": Family(
        "MinAtar",
        ["dqn", "double_dqn", "c51", "rainbow", "a2c", "ppo"],
        ["minatar"],
        seen="Breakout runs in the notes below and [Breakout-MinAtar](#breakout-minatar-time-to-a-score)",
    ),
    "atari": Family(
        "Atari",
        ["dqn", "double_dqn", "c51", "rainbow", "a2c", "ppo"],
        ["atari"],
        ("env.game=pong",),
        seen="[Pong](#pong-ppo-and-dqn-speed-and-the-replays-memory)",
    ),
    "mujoco": Family(
        "MuJoCo",
        ["a2c", "ppo", "sac", "td3", "ddpg"],
        ["mujoco"],
        ("env.id=HalfCheetah-v5",),
        seen="InvertedPendulum runs in the notes below and [MuJoCo](#mujoco-ppo-and-sac-against-sb3)",
    ),
}


def values(algo: str, env: str) -> str:
    """Where the run's values come from: the tuned file Hydra picks (the family file it defers to, when
    it holds nothing of its own), or "generic"."""
    path = CONF / "tuned" / f"{algo}_{env}.yaml"
    if not path.exists():
        return "generic"
    given = yaml.safe_load(path.read_text()) or {}
    parents = [d for d in given.get("defaults", []) if d != "_self_"]
    if set(given) == {"defaults"} and len(parents) == 1:
        return f"`tuned/{parents[0]}`"
    return f"`tuned/{path.stem}`"


def budget(algo: str, env: str, extra: tuple[str, ...]) -> int:
    """The env steps a run of ``algo`` on ``env`` ships with (its composed ``total_env_steps``)."""
    one = [o.split(",")[0] for o in extra]  # the first of a swept list: the budget is the family's
    return int(composed(f"algo={algo}", f"env={env}", *one)["total_env_steps"])


def sweep(key: str, family: Family, out: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "rlfw",
        "-m",
        f"algo={','.join(family.algos)}",
        f"env={','.join(family.envs)}",
        *family.extra,
        "seed=0",
        f"hydra.sweep.dir={out / key}",
    ]
    print(" ".join(command[1:]), flush=True)
    subprocess.run(command, check=True)


def table(out: Path) -> str:
    lines = [
        "| family | algo | env | values | budget (env steps) | one seed reaches (greedy eval) | learns |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, family in FAMILIES.items():
        runs = [json.loads(p.read_text()) for p in sorted((out / key).rglob("summary.json"))]
        for algo in family.algos:
            for env in family.envs:
                given = values(algo, env)
                steps = budget(algo, env, family.extra)
                mine = [r for r in runs if r["algo"] == algo and r["choices"]["env"] == env]
                if family.seen or not mine:
                    status = "not run yet"
                    if family.seen:
                        status = f"not in the sweep: {family.seen}"
                    if family.seen and given == "generic":
                        status = "no tuned values yet; not run"
                    lines.append(f"| {family.name} | {algo} | {env} | {given} | {steps:,} | - | {status} |")
                    continue
                for run in sorted(mine, key=lambda r: r["env"]):
                    lines.append(f"| {family.name} | {algo} | {run['env']} | {given} | {steps:,} | {reached(run)} |")
    return "\n".join(lines)


def reached(run: dict) -> str:
    """What the run reached, and whether that is learning: its env's solved return."""
    bar = run["solved_return"]
    best, final = run["best_eval_return_mean"], run["eval_return_mean"]
    if run["solved"] or (bar is not None and best >= bar):
        return f"{best:.4g} at {run['env_steps']:,} | yes (bar {bar:g})"
    return f"{final:.4g} (best {best:.4g}) | {'no' if bar is not None else '?'} (bar {bar})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--families", nargs="*", default=[k for k, f in FAMILIES.items() if not f.seen])
    parser.add_argument("--out", type=Path, default=Path("outputs/defaults"))
    parser.add_argument("--table", action="store_true", help="only print the table of the runs under --out")
    args = parser.parse_args()
    if not args.table:
        for key in args.families:
            sweep(key, FAMILIES[key], args.out)
    print(table(args.out))


if __name__ == "__main__":
    main()
