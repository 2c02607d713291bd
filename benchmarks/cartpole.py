"""rlfw vs Stable-Baselines3 on CartPole-v1: wall seconds and env steps to a greedy-eval return of 475.

    pip install -e ".[bench]" && python benchmarks/cartpole.py [--algos ppo dqn] [--seeds 0 1 2]

Both sides run the same protocol (benchmarks/time_to_score.py), each run in its own process with one
torch thread, one at a time: train with each side's CartPole-v1 defaults (SB3: RL Zoo's hyperparameters; rlfw: its shipped
conf/tuned/, which say where they differ from RL Zoo's), evaluate the greedy policy every 5,000 env
steps on 10 episodes (a 10-env vector on both sides), stop once the mean return reaches 475 or the
budget (100k env steps) runs out. Wall seconds are measured inside the process around training
(imports excluded). Prints each run, then medians and the ratio rlfw / SB3 (below 1: rlfw is faster).
"""

from __future__ import annotations

import argparse

from time_to_score import Run, compare, learn_sb3, run_child
from time_to_score import run_rlfw as run_rlfw_with

SOLVED, BUDGET, EVAL_EVERY, EVAL_EPISODES = 475.0, 100_000, 5_000, 10

# RL Zoo, hyperparams/ppo.yml and dqn.yml, CartPole-v1 ("lin_x": linear decay from x to 0).
SB3_PPO = dict(n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20, ent_coef=0.0)
SB3_PPO_LR, SB3_PPO_CLIP, SB3_PPO_ENVS = 1e-3, 0.2, 8
SB3_DQN = dict(
    learning_rate=2.3e-3,
    batch_size=64,
    buffer_size=100_000,
    learning_starts=1000,
    gamma=0.99,
    target_update_interval=10,
    train_freq=256,
    gradient_steps=128,
    exploration_fraction=0.16,
    exploration_final_eps=0.04,
    policy_kwargs=dict(net_arch=[256, 256]),
)


def run_rlfw(algo: str, seed: int) -> Run:
    return run_rlfw_with(f"algo={algo}", "env=cartpole", f"seed={seed}")


def run_sb3(algo: str, seed: int) -> Run:
    return run_child(__file__, algo, str(seed))


def sb3_child(algo: str, seed: int) -> None:
    import torch
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    if algo == "ppo":
        env = make_vec_env("CartPole-v1", n_envs=SB3_PPO_ENVS, seed=seed)
        model = PPO(
            "MlpPolicy",
            env,
            learning_rate=lambda p: SB3_PPO_LR * p,
            clip_range=lambda p: SB3_PPO_CLIP * p,
            seed=seed,
            device="cpu",
            **SB3_PPO,
        )
    else:
        env = make_vec_env("CartPole-v1", n_envs=1, seed=seed)
        model = DQN("MlpPolicy", env, seed=seed, device="cpu", **SB3_DQN)
    eval_env = make_vec_env("CartPole-v1", n_envs=EVAL_EPISODES, seed=seed + 1_000_003)
    learn_sb3(model, BUDGET, eval_env, SOLVED, EVAL_EVERY, EVAL_EPISODES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algos", nargs="+", default=["ppo", "dqn"], choices=["ppo", "dqn"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--sb3", nargs=2, metavar=("ALGO", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sb3:
        return sb3_child(args.sb3[0], int(args.sb3[1]))

    compare(args.algos, args.seeds, {"rlfw": run_rlfw, "sb3": run_sb3}, "475")


if __name__ == "__main__":
    main()
