"""rlfw vs Stable-Baselines3 on Breakout-MinAtar: wall seconds and env steps to a greedy-eval return of 10.

    pip install -e ".[bench,minatar]" && python benchmarks/breakout_minatar.py [--algos ppo dqn] [--seeds 0 1 2] [--curves DIR] [--parts compare floor]

The pixel counterpart of benchmarks/cartpole.py, with its protocol (benchmarks/time_to_score.py):
each algo with rlfw's tuned config on both sides, the same env (rlfw.env.minatar's MinAtarEnv:
sticky actions 0.1, difficulty ramp, all 6 actions) and the same network, Young & Tian (2019)'s: a
3x3 convolution of 16 channels, 128 units, then linear heads (PPO's policy and value share that trunk).
Greedy evaluation every 25,000 env steps on 10 episodes; a run stops at a mean return of 10 (Young &
Tian's DQN reaches about 10 in 5M frames; their AC(0.8) about 17) or at the 1M-step budget.

PPO: conf/tuned/ppo_minatar.yaml; SB3 takes its values as its own arguments: n_steps 128 x 8 envs,
batch 64 (16 minibatches), 4 epochs, Adam lr 1e-3 (SB3's eps 1e-5), clip 0.2 on the policy and the
value, ent_coef 0.01, max_grad_norm 0.5, GAE lambda 0.95. Two forms differ: rlfw's value loss is
1/2 (V - R)^2 (CleanRL's) with vf_coef 0.5, SB3's is (V - R)^2, so SB3 gets vf_coef 0.25 for the same
gradient; SB3's clipped value loss takes the clipped prediction alone, rlfw's the larger of the
clipped and unclipped errors.

DQN: conf/tuned/dqn_minatar.yaml (Young & Tian's values) in the layout of rlfw's tuned Pong DQN, 4 envs
and an update every vector step, so an update per 4 env steps where their paper updates every env step
(at one per env step, an update of 2-3 ms holds a run under 400 env steps/s: some 15 minutes a run
to 350k env steps, 1.5 hours for three seeds on both sides; docs/results.md, "Four envs for DQN",
found the same learning at one update per 4 env steps with 1 env or 4). SB3 in that layout: 4 envs, train_freq 1,
its target copy every 4,000 env steps (rlfw's every 1,000 updates), epsilon 1 -> 0.1 over the first
100k env steps (exploration_fraction 0.1 of the budget), Huber loss, Adam lr 2.5e-4 with eps 3.125e-4,
no gradient clipping (max_grad_norm inf; SB3's default is 10, the paper clips nothing).

``--curves DIR`` writes each rlfw run's metrics.csv and SB3's eval returns there, per algo. (Not named
minatar.py: run as a script, that name would hide the minatar package from its own imports.)

The floor part (benchmarks/floor.py, one thread) is what each algo's settings allow with no overhead
at all, each part timed alone: for PPO 64 gradient steps at batch 64, 128 acting forwards at batch 8
and 128 steps of the 8 envs per 1,024 env steps; for DQN an update at batch 32, a forward at batch 4
and a step of the 4 envs per 4 env steps, at epsilon 0.1 (where its runs spend all but 100k steps);
and the same calls in turns, in the order a loop makes them. Both sides run the same algorithm with
the same values, so they need about as many env steps; SB3's steps/s over the floor is then the
lowest wall-time ratio to SB3 that any framework could reach.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
from pathlib import Path

from floor import described, dqn_floor, ppo_floor
from time_to_score import Run, compare, learn_sb3, run_child
from time_to_score import run_rlfw as run_rlfw_with

TARGET, BUDGET, EVAL_EVERY, EVAL_EPISODES = 10.0, 1_000_000, 25_000, 10
GAME = "breakout"
SB3_PPO = dict(
    n_steps=128,
    batch_size=64,
    n_epochs=4,
    learning_rate=1e-3,
    gamma=0.99,
    gae_lambda=0.95,
    clip_range=0.2,
    clip_range_vf=0.2,
    ent_coef=0.01,
    vf_coef=0.25,
    max_grad_norm=0.5,
)
DQN_ENVS = 4
SB3_DQN = dict(
    buffer_size=100_000,
    learning_starts=5_000,
    batch_size=32,
    gamma=0.99,
    train_freq=1,
    gradient_steps=1,
    target_update_interval=1_000 * DQN_ENVS,
    exploration_initial_eps=1.0,
    exploration_final_eps=0.1,
    exploration_fraction=100_000 / BUDGET,
    learning_rate=2.5e-4,
    max_grad_norm=float("inf"),
)
RLFW_LAYOUT = {"ppo": [], "dqn": [f"num_envs={DQN_ENVS}"]}


def run_rlfw(algo: str, seed: int) -> Run:
    return run_rlfw_with(
        f"algo={algo}",
        "env=minatar",
        f"env.game={GAME}",
        f"env.solved_return={TARGET}",
        f"total_env_steps={BUDGET}",
        f"eval.every={EVAL_EVERY}",
        f"eval.episodes={EVAL_EPISODES}",
        f"seed={seed}",
        *RLFW_LAYOUT[algo],
    )


def run_sb3(algo: str, seed: int) -> Run:
    return run_child(__file__, algo, str(seed))


def sb3_child(algo: str, seed: int) -> None:
    import gymnasium as gym
    import torch
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from torch import nn

    from rlfw.env.minatar import MinAtarEnv

    class YoungTian(BaseFeaturesExtractor):
        """Young & Tian (2019)'s trunk: conv 16 x 3x3, stride 1, ReLU, then 128 units, ReLU."""

        def __init__(self, space: gym.spaces.Box):
            super().__init__(space, features_dim=128)
            channels, rows, columns = space.shape
            self.net = nn.Sequential(
                nn.Conv2d(channels, 16, 3),
                nn.ReLU(),
                nn.Flatten(),
                nn.Linear(16 * (rows - 2) * (columns - 2), 128),
                nn.ReLU(),
            )

        def forward(self, obs: torch.Tensor) -> torch.Tensor:
            return self.net(obs)

    torch.set_num_threads(1)

    def make() -> gym.Env:
        return MinAtarEnv(GAME, sticky=0.1, ramping=True, minimal_actions=False)

    if algo == "ppo":
        env = make_vec_env(make, n_envs=8, seed=seed)
        policy = dict(features_extractor_class=YoungTian, net_arch=[], share_features_extractor=True)
        model = PPO("CnnPolicy", env, seed=seed, device="cpu", policy_kwargs=policy, **SB3_PPO)
    else:
        env = make_vec_env(make, n_envs=DQN_ENVS, seed=seed)
        policy = dict(features_extractor_class=YoungTian, net_arch=[], optimizer_kwargs=dict(eps=3.125e-4))
        model = DQN("CnnPolicy", env, seed=seed, device="cpu", policy_kwargs=policy, **SB3_DQN)
    eval_env = make_vec_env(make, n_envs=EVAL_EPISODES, seed=seed + 1_000_003)
    learn_sb3(model, BUDGET, eval_env, TARGET, EVAL_EVERY, EVAL_EPISODES)


def floor_child(algo: str) -> None:
    overrides = ("env=minatar", f"env.game={GAME}", "threads=1", *RLFW_LAYOUT[algo])
    print(json.dumps(ppo_floor(*overrides) if algo == "ppo" else dqn_floor(0.1, *overrides)))


def print_floor(algo: str, runs: dict | None) -> None:
    """``algo``'s floor (in a fresh child process, one thread), against each side's median steps/s when
    the comparison ran (their steps/s count evaluations too; the floor has none)."""
    command = [sys.executable, __file__, "--floor-child", algo]
    f = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    alone, in_turns = described(algo, f, 3)
    print(
        f"{algo.upper()}'s floor on Breakout-MinAtar: {f['steps_per_s']:.0f} env steps/s with no overhead ({alone});"
        f" in turns {f['steps_per_s_in_turns']:.0f} ({in_turns})"
    )
    if runs and algo in runs:
        rate = {name: statistics.median(r["steps_per_s"] for r in done) for name, done in runs[algo].items()}
        for label, floor in (("the floor", f["steps_per_s"]), ("the floor in turns", f["steps_per_s_in_turns"])):
            print(
                f"rlfw {rate['rlfw']:.0f} steps/s ({rate['rlfw'] / floor:.0%} of {label}), SB3"
                f" {rate['sb3']:.0f} ({rate['sb3'] / floor:.0%}); at SB3's env steps to {TARGET:g}, a run"
                f" at {label} would take {rate['sb3'] / floor:.2f}x SB3's wall time"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algos", nargs="+", default=["ppo", "dqn"], choices=["ppo", "dqn"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--curves", type=Path, help="a folder for each run's curve, and <algo>_curves.png of all in it")
    parser.add_argument("--parts", nargs="+", default=["compare", "floor"], choices=["compare", "floor"])
    parser.add_argument("--sb3", nargs=2, metavar=("ALGO", "SEED"), help=argparse.SUPPRESS)
    parser.add_argument("--floor-child", choices=["ppo", "dqn"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sb3:
        return sb3_child(args.sb3[0], int(args.sb3[1]))
    if args.floor_child:
        return floor_child(args.floor_child)
    runs = (
        compare(args.algos, args.seeds, {"rlfw": run_rlfw, "sb3": run_sb3}, f"{TARGET:g}")
        if "compare" in args.parts
        else None
    )
    if "floor" in args.parts:
        for algo in args.algos:
            print_floor(algo, runs)
    if args.curves and runs:
        write_curves(args.curves, args.seeds, runs)
        for algo in runs:
            plot_curves(args.curves, algo)


def write_curves(folder: Path, seeds: list[int], runs: dict) -> None:
    """Each rlfw run's metrics.csv and SB3's eval returns, one file per algo and run."""
    folder.mkdir(parents=True, exist_ok=True)
    for algo, sides in runs.items():
        for seed, ours, theirs in zip(seeds, sides["rlfw"], sides["sb3"], strict=True):
            (folder / f"{algo}_rlfw_seed{seed}.csv").write_text(ours["curve"])
            sb3 = {"eval_every": EVAL_EVERY, "eval_returns": theirs["evals"]}
            (folder / f"{algo}_sb3_seed{seed}.json").write_text(json.dumps(sb3))


def plot_curves(folder: Path, algo: str) -> None:
    """<algo>_curves.png: every run's greedy eval return against env steps, of all the algo's runs in
    ``folder`` (so runs of several invocations, each with its own seeds, plot together)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for i, path in enumerate(sorted(folder.glob(f"{algo}_rlfw_seed*.csv"))):
        with open(path) as f:
            rows = [r for r in csv.DictReader(f) if r["eval/return_mean"]]
        steps, returns = [int(r["step"]) for r in rows], [float(r["eval/return_mean"]) for r in rows]
        ax.plot(steps, returns, color="tab:blue", alpha=0.7, label=None if i else "rlfw")
    for i, path in enumerate(sorted(folder.glob(f"{algo}_sb3_seed*.json"))):
        sb3 = json.loads(path.read_text())
        steps = [sb3["eval_every"] * (n + 1) for n in range(len(sb3["eval_returns"]))]
        ax.plot(steps, sb3["eval_returns"], color="tab:orange", alpha=0.7, label=None if i else "SB3")
    ax.axhline(TARGET, color="gray", linestyle="--", linewidth=1)
    ax.set(
        xlabel="env steps",
        ylabel="greedy eval return (10 episodes)",
        title=f"{algo.upper()} on Breakout-MinAtar, one line a seed",
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(folder / f"{algo}_curves.png", dpi=100)


if __name__ == "__main__":
    main()
