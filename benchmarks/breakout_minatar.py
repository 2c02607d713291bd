"""rlfw vs Stable-Baselines3 on Breakout-MinAtar: wall seconds and env steps to a greedy-eval return of 10.

    pip install -e ".[bench,minatar]" && python benchmarks/breakout_minatar.py [--seeds 0 1 2] [--curves DIR]

The pixel counterpart of benchmarks/cartpole.py, with its protocol (benchmarks/time_to_score.py): PPO
with rlfw's conf/tuned/ppo_minatar.yaml on both sides, the same env (rlfw.env.minatar's MinAtarEnv:
sticky actions 0.1, difficulty ramp, all 6 actions) and the same network, Young & Tian (2019)'s: a
3x3 convolution of 16 channels, 128 units, then linear policy and value heads on that shared trunk.
Greedy evaluation every 25,000 env steps on 10 episodes; a run stops at a mean return of 10 (Young &
Tian's DQN reaches about 10 in 5M frames; their AC(0.8) about 17) or at the 1M-step budget.

SB3 takes the values as its own arguments: n_steps 128 x 8 envs, batch 64 (16 minibatches), 4
epochs, Adam lr 1e-3 (SB3's eps 1e-5), clip 0.2 on the policy and the value, ent_coef 0.01,
max_grad_norm 0.5, GAE lambda 0.95. Two forms differ: rlfw's value loss is 1/2 (V - R)^2 (CleanRL's)
with vf_coef 0.5, SB3's is (V - R)^2, so SB3 gets vf_coef 0.25 for the same gradient; SB3's clipped
value loss takes the clipped prediction alone, rlfw's the larger of the clipped and unclipped errors.
``--curves DIR`` writes each rlfw run's metrics.csv and SB3's eval returns there. (Not named
minatar.py: run as a script, that name would hide the minatar package from its own imports.)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

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
    )


def run_sb3(algo: str, seed: int) -> Run:
    return run_child(__file__, algo, str(seed))


def sb3_child(algo: str, seed: int) -> None:
    import gymnasium as gym
    import torch
    from stable_baselines3 import PPO
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
    assert algo == "ppo"

    def make() -> gym.Env:
        return MinAtarEnv(GAME, sticky=0.1, ramping=True, minimal_actions=False)

    env = make_vec_env(make, n_envs=8, seed=seed)
    policy = dict(features_extractor_class=YoungTian, net_arch=[], share_features_extractor=True)
    model = PPO("CnnPolicy", env, seed=seed, device="cpu", policy_kwargs=policy, **SB3_PPO)
    eval_env = make_vec_env(make, n_envs=EVAL_EPISODES, seed=seed + 1_000_003)
    learn_sb3(model, BUDGET, eval_env, TARGET, EVAL_EVERY, EVAL_EPISODES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--curves", type=Path, help="a folder for each run's curve")
    parser.add_argument("--sb3", nargs=2, metavar=("ALGO", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sb3:
        return sb3_child(args.sb3[0], int(args.sb3[1]))
    runs = compare(["ppo"], args.seeds, {"rlfw": run_rlfw, "sb3": run_sb3}, f"{TARGET:g}")
    if args.curves:
        args.curves.mkdir(parents=True, exist_ok=True)
        for seed, (ours, theirs) in zip(
            args.seeds, zip(runs["ppo"]["rlfw"], runs["ppo"]["sb3"], strict=True), strict=True
        ):
            (args.curves / f"rlfw_seed{seed}.csv").write_text(ours["curve"])
            sb3 = {"eval_every": EVAL_EVERY, "eval_returns": theirs["evals"]}
            (args.curves / f"sb3_seed{seed}.json").write_text(json.dumps(sb3))


if __name__ == "__main__":
    main()
