"""rlfw vs Stable-Baselines3 on CartPole-v1: wall seconds and env steps to a greedy-eval return of 475.

    pip install -e ".[bench]" && python benchmarks/cartpole.py [--algos ppo dqn] [--seeds 0 1 2]

Both sides run the same protocol, each run in its own process with one torch thread, one at a time:
train with each side's CartPole-v1 defaults (SB3: RL Zoo's hyperparameters; rlfw: its shipped
conf/tuned/, which say where they differ from RL Zoo's), evaluate the greedy policy every 5,000 env
steps on 10 episodes (a 10-env vector on both sides), stop once the mean return reaches 475 or the
budget (100k env steps) runs out. Wall seconds are measured inside the process around training
(imports excluded). Prints each run, then medians and the ratio rlfw / SB3 (below 1: rlfw is faster).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def run_rlfw(algo: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "rlfw",
                f"algo={algo}",
                "env=cartpole",
                f"seed={seed}",
                "threads=1",
                f"hydra.run.dir={tmp}",
            ],
            check=True,
            capture_output=True,
        )
        summary = json.loads((Path(tmp) / "summary.json").read_text())
    return {
        "solved": summary["solved"],
        "env_steps": summary["env_steps"],
        "wall_s": summary["wall_seconds"],
        "steps_per_s": summary["steps_per_second"],
    }


def run_sb3(algo: str, seed: int) -> dict:
    """Runs in a child process (``--sb3``) so that both sides start from a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, __file__, "--sb3", algo, str(seed)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def sb3_child(algo: str, seed: int) -> None:
    import torch
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.callbacks import EvalCallback, StopTrainingOnRewardThreshold
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
    stop = StopTrainingOnRewardThreshold(reward_threshold=SOLVED, verbose=0)
    evaluator = EvalCallback(
        eval_env,
        callback_on_new_best=stop,
        n_eval_episodes=EVAL_EPISODES,
        eval_freq=max(1, EVAL_EVERY // env.num_envs),
        deterministic=True,
        verbose=0,
    )
    started = time.perf_counter()
    model.learn(total_timesteps=BUDGET, callback=evaluator)
    wall = time.perf_counter() - started
    steps = model.num_timesteps
    print(
        json.dumps(
            {
                "solved": bool(evaluator.best_mean_reward >= SOLVED),
                "env_steps": steps,
                "wall_s": wall,
                "steps_per_s": steps / wall,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algos", nargs="+", default=["ppo", "dqn"], choices=["ppo", "dqn"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--sb3", nargs=2, metavar=("ALGO", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sb3:
        return sb3_child(args.sb3[0], int(args.sb3[1]))

    print(f"{'algo':5} {'framework':9} {'seed':>4} {'solved':>6} {'env steps':>9} {'wall s':>7} {'steps/s':>8}")
    for algo in args.algos:
        medians = {}
        for name, runner in (("rlfw", run_rlfw), ("sb3", run_sb3)):
            runs = []
            for seed in args.seeds:
                r = runner(algo, seed)
                runs.append(r)
                print(
                    f"{algo:5} {name:9} {seed:4d} {r['solved']!s:>6} {r['env_steps']:9d} {r['wall_s']:7.1f} {r['steps_per_s']:8.0f}",
                    flush=True,
                )
            medians[name] = {k: statistics.median(r[k] for r in runs) for k in ("wall_s", "env_steps", "steps_per_s")}
            medians[name]["solved"] = sum(r["solved"] for r in runs)
        rl, sb = medians["rlfw"], medians["sb3"]
        print(
            f"{algo}: median wall s to 475: rlfw {rl['wall_s']:.1f} vs SB3 {sb['wall_s']:.1f} (ratio {rl['wall_s'] / sb['wall_s']:.2f}); "
            f"median env steps {rl['env_steps']:.0f} vs {sb['env_steps']:.0f}; "
            f"median steps/s {rl['steps_per_s']:.0f} vs {sb['steps_per_s']:.0f} (ratio {rl['steps_per_s'] / sb['steps_per_s']:.2f}); "
            f"solved {rl['solved']}/{len(args.seeds)} vs {sb['solved']}/{len(args.seeds)}\n",
            flush=True,
        )


if __name__ == "__main__":
    main()
