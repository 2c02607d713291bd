"""rlfw vs Stable-Baselines3 PPO on MuJoCo: training steps/s and the return, the same env steps each.

    pip install -e ".[bench,mujoco]" && python benchmarks/mujoco.py [--envs HalfCheetah-v4 Hopper-v4]
        [--steps 100000] [--seeds 0 1 2]

Each side trains with its own tuned values: rlfw with ``algo=ppo env=<preset>`` and nothing else
(conf/tuned/ppo_mujoco.yaml, CleanRL's values), SB3 with RL Zoo's hyperparams/ppo.yml for the v3
version of the env and VecNormalize (observations and rewards, RL Zoo's ``normalize: true``). The two
do different amounts of work per env step (RL Zoo's HalfCheetah: 20 epochs of 64-sample minibatches
over 512 steps, 256x256 ReLU nets; CleanRL's: 10 epochs of 64 over 2048, 64x64 tanh), which the
output states next to the figures. Runs take turns, rlfw then SB3 for each seed, each in a fresh
process with one torch thread; steps/s counts training only (imports and the final evaluation
excluded). The return is the mean of the last 100 training episodes (CleanRL's measure) and a greedy
evaluation of 10 episodes at the end.
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

PRESETS = {"HalfCheetah-v4": "halfcheetah", "Hopper-v4": "hopper", "Walker2d-v4": "walker2d"}
NET = dict(log_std_init=-2, ortho_init=False, net_arch=dict(pi=[256, 256], vf=[256, 256]))
# RL Zoo, hyperparams/ppo.yml ("Tuned", the v3 envs), with SB3's defaults for what it leaves out.
RL_ZOO = {
    "HalfCheetah-v4": dict(
        batch_size=64, n_steps=512, gamma=0.98, learning_rate=2.0633e-05, ent_coef=0.000401762, clip_range=0.1,
        n_epochs=20, gae_lambda=0.92, max_grad_norm=0.8, vf_coef=0.58096,
    ),
    "Hopper-v4": dict(
        batch_size=32, n_steps=512, gamma=0.999, learning_rate=9.80828e-05, ent_coef=0.00229519, clip_range=0.2,
        n_epochs=5, gae_lambda=0.99, max_grad_norm=0.7, vf_coef=0.835671,
    ),
    "Walker2d-v4": dict(
        batch_size=32, n_steps=512, gamma=0.99, learning_rate=5.05041e-05, ent_coef=0.000585045, clip_range=0.1,
        n_epochs=20, gae_lambda=0.95, max_grad_norm=1, vf_coef=0.871923,
    ),
}  # fmt: skip
EVAL_EPISODES = 10


def work(env: str) -> str:
    """Gradient steps per env step of each side's values, and their network sizes."""
    zoo = RL_ZOO[env]
    return (
        f"gradient steps per env step: rlfw {10 * 32 / 2048:.3f} (64x64 tanh), "
        f"SB3 {zoo['n_epochs'] / zoo['batch_size']:.3f} (256x256 ReLU)"
    )


def run_rlfw(env: str, seed: int, steps: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable, "-m", "rlfw", "algo=ppo", f"env={PRESETS[env]}", f"seed={seed}",
                f"total_env_steps={steps}", f"eval.every={steps}", "checkpoint.every=null", f"hydra.run.dir={tmp}",
            ],
            check=True,
            capture_output=True,
        )  # fmt: skip
        summary = json.loads((Path(tmp) / "summary.json").read_text())
    return {
        "steps_per_s": summary["steps_per_second"],
        "train_return": summary["train_episode_return_last_100"],
        "eval_return": summary["eval_return_mean"],
    }


def run_sb3(env: str, seed: int, steps: int) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--sb3", env, str(seed), str(steps)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def sb3_child(env_id: str, seed: int, steps: int) -> None:
    import numpy as np
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.vec_env import VecNormalize

    torch.set_num_threads(1)
    env = VecNormalize(make_vec_env(env_id, n_envs=1, seed=seed), gamma=RL_ZOO[env_id]["gamma"])
    model = PPO("MlpPolicy", env, seed=seed, device="cpu", policy_kwargs=NET, **RL_ZOO[env_id])
    started = time.perf_counter()
    model.learn(total_timesteps=steps)
    wall = time.perf_counter() - started
    returns = [info["r"] for info in model.ep_info_buffer]  # SB3 keeps the last 100 episodes, raw rewards
    eval_env = VecNormalize(make_vec_env(env_id, n_envs=1, seed=seed + 1_000_003), training=False, norm_reward=False)
    eval_env.obs_rms = env.obs_rms
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=EVAL_EPISODES, deterministic=True)
    print(
        json.dumps(
            {"steps_per_s": model.num_timesteps / wall, "train_return": float(np.mean(returns)), "eval_return": mean}
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--envs", nargs="+", default=["HalfCheetah-v4", "Hopper-v4"], choices=list(PRESETS))
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--sb3", nargs=3, metavar=("ENV", "SEED", "STEPS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sb3:
        return sb3_child(args.sb3[0], int(args.sb3[1]), int(args.sb3[2]))

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"PPO, {args.steps:,} env steps per run, CPU: {cpu}")
    print(f"{'env':15} {'framework':9} {'seed':>4} {'steps/s':>8} {'train return':>12} {'eval return':>11}")
    for env in args.envs:
        runs: dict[str, list[dict]] = {"rlfw": [], "sb3": []}
        for seed in args.seeds:  # the two take turns, so the machine's drift falls on both alike
            for name, runner in (("rlfw", run_rlfw), ("sb3", run_sb3)):
                r = runner(env, seed, args.steps)
                runs[name].append(r)
                print(
                    f"{env:15} {name:9} {seed:4d} {r['steps_per_s']:8.0f} {r['train_return']:12.1f} {r['eval_return']:11.1f}",
                    flush=True,
                )
        med = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in runs.items()}
        rl, sb = med["rlfw"], med["sb3"]
        print(
            f"{env}: median steps/s rlfw {rl['steps_per_s']:.0f} vs SB3 {sb['steps_per_s']:.0f}"
            f" (ratio {rl['steps_per_s'] / sb['steps_per_s']:.2f}); median train return {rl['train_return']:.0f} vs"
            f" {sb['train_return']:.0f}; median eval return {rl['eval_return']:.0f} vs {sb['eval_return']:.0f}; {work(env)}\n",
            flush=True,
        )


if __name__ == "__main__":
    main()
