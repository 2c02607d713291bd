"""rlfw vs Stable-Baselines3 on MuJoCo (PPO, SAC): training steps/s and the return, the same env steps each.

    pip install -e ".[bench,mujoco]" && python benchmarks/mujoco.py [--algo ppo|sac]
        [--envs HalfCheetah-v4 Hopper-v4] [--steps 100000] [--seeds 0 1 2] [--sb3-values rlzoo|cleanrl]
        [--precisions auto fp32]

rlfw runs with each of ``--precisions`` (``network.precision``; its default, auto, is bf16 matrix
products where the CPU has bf16 instructions and they pay, which the first line says); SB3 runs fp32.
After each env's runs it prints rlfw's floor for each precision (benchmarks/floor.py: the env steps/s
the network, optimizer and env allow with no overhead, each part timed alone and in turns).

SAC: rlfw's ``algo=sac`` (CleanRL's values) and SB3's SAC with RL Zoo's (hyperparams/sac.yml, the v3
MuJoCo envs: SB3's defaults, learning from step 10k) do the same work: one update of 256 samples per
env step with 256x256 nets and twin critics; rlfw learns from step 10k here too, so both make the same
number of updates.

PPO:
Each side trains with its own tuned values: rlfw with ``algo=ppo env=<preset>`` and nothing else
(conf/tuned/ppo_mujoco.yaml, CleanRL's values), SB3 with RL Zoo's hyperparams/ppo.yml for the v3
version of the env and VecNormalize (observations and rewards, RL Zoo's ``normalize: true``). The two
do different amounts of work per env step (RL Zoo's HalfCheetah: 20 epochs of 64-sample minibatches
over 512 steps, 256x256 ReLU nets; CleanRL's: 10 epochs of 64 over 2048, 64x64 tanh), which the
output states next to the figures; ``--sb3-values cleanrl`` gives SB3 rlfw's values (CleanRL's), so
the two do the same work and the ratio is the frameworks' own. Runs take turns, rlfw then SB3 for each seed, each in a fresh
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

from floor import described, ppo_floor, sac_floor
from time_to_score import off_sys_path

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
# CleanRL's ppo_continuous_action.py in SB3's terms (SB3's MlpPolicy is already 64x64 tanh, orthogonal
# init, log std 0, Adam eps 1e-5): the same work per env step as rlfw's tuned values.
CLEANRL = dict(
    n_steps=2048, batch_size=64, n_epochs=10, gamma=0.99, gae_lambda=0.95, clip_range=0.2, clip_range_vf=0.2,
    ent_coef=0.0, vf_coef=0.5, max_grad_norm=0.5,
)  # fmt: skip
EVAL_EPISODES = 10


def work(algo: str, env: str, values: str) -> str:
    """Gradient steps per env step of each side's values, and their network sizes."""
    if algo == "sac":
        return "the same work on both sides: one update of 256 samples per env step from step 10k, 256x256 nets"
    if values == "cleanrl":
        return "the same values on both sides (CleanRL's): 0.156 gradient steps per env step, 64x64 tanh"
    zoo = RL_ZOO[env]
    return (
        f"gradient steps per env step: rlfw {10 * 32 / 2048:.3f} (64x64 tanh), "
        f"SB3 {zoo['n_epochs'] / zoo['batch_size']:.3f} (256x256 ReLU)"
    )


def run_rlfw(algo: str, env: str, seed: int, steps: int, precision: str) -> dict:
    extra = ["replay.learning_starts=10000"] if algo == "sac" else []  # RL Zoo's, for the same number of updates
    extra.append(f"network.precision={precision}")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable, "-m", "rlfw", f"algo={algo}", f"env={PRESETS[env]}", f"seed={seed}", *extra,
                f"total_env_steps={steps}", f"eval.every={steps}", "checkpoint.every=null", f"hydra.run.dir={tmp}",
            ],
            check=True,
            capture_output=True,
        )  # fmt: skip
        summary = json.loads((Path(tmp) / "summary.json").read_text())
    training = summary["wall_seconds"] - summary["time_seconds"]["evaluate"]  # as SB3's: learn() alone
    return {
        "steps_per_s": summary["env_steps"] / training,
        "train_return": summary["train_episode_return_last_100"],
        "eval_return": summary["eval_return_mean"],
    }


def run_sb3(algo: str, env: str, seed: int, steps: int, values: str) -> dict:
    child = [sys.executable, __file__, "--sb3", algo, env, str(seed), str(steps), values]
    out = subprocess.run(child, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def sb3_model(algo: str, env_id: str, seed: int, values: str):
    """SB3's model and a greedy-evaluation env made as its training env (normalization frozen)."""
    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize

    eval_env = make_vec_env(env_id, n_envs=1, seed=seed + 1_000_003)
    if algo == "sac":  # RL Zoo's hyperparams/sac.yml for the MuJoCo envs: SB3's defaults, learning from 10k
        return SAC(
            "MlpPolicy", make_vec_env(env_id, n_envs=1, seed=seed), learning_starts=10_000, seed=seed, device="cpu"
        ), eval_env
    if values == "cleanrl":
        hyper, kwargs = {**CLEANRL, "learning_rate": lambda p: 3e-4 * p}, {}
    else:
        hyper, kwargs = RL_ZOO[env_id], {"policy_kwargs": NET}
    env = VecNormalize(make_vec_env(env_id, n_envs=1, seed=seed), gamma=hyper["gamma"])
    frozen = VecNormalize(eval_env, training=False, norm_reward=False)
    frozen.obs_rms = env.obs_rms
    return PPO("MlpPolicy", env, seed=seed, device="cpu", **kwargs, **hyper), frozen


def sb3_child(algo: str, env_id: str, seed: int, steps: int, values: str) -> None:
    import numpy as np
    import torch
    from stable_baselines3.common.evaluation import evaluate_policy

    torch.set_num_threads(1)
    model, eval_env = sb3_model(algo, env_id, seed, values)
    started = time.perf_counter()
    model.learn(total_timesteps=steps)
    wall = time.perf_counter() - started
    returns = [info["r"] for info in model.ep_info_buffer]  # SB3 keeps the last 100 episodes, raw rewards
    mean, _ = evaluate_policy(model, eval_env, n_eval_episodes=EVAL_EPISODES, deterministic=True)
    result = {"steps_per_s": model.num_timesteps / wall, "train_return": float(np.mean(returns)), "eval_return": mean}
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algo", choices=["ppo", "sac"], default="ppo")
    parser.add_argument("--envs", nargs="+", default=["HalfCheetah-v4", "Hopper-v4"], choices=list(PRESETS))
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument(
        "--sb3-values", choices=["rlzoo", "cleanrl"], default="rlzoo",
        help="SB3's hyperparameters: RL Zoo's tuned ones (default), or CleanRL's, as rlfw's (the same work)",
    )  # fmt: skip
    parser.add_argument("--precisions", nargs="+", default=["auto"], choices=["auto", "fp32", "bf16"])
    parser.add_argument("--sb3", nargs=5, metavar=("ALGO", "ENV", "SEED", "STEPS", "VALUES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sb3:
        algo, env, seed, steps, values = args.sb3
        return sb3_child(algo, env, int(seed), int(steps), values)

    from rlfw.machine import cpu_model, native_bf16  # here: benchmarks/ is off sys.path by now

    cpu = cpu_model()
    values = "RL Zoo's" if args.algo == "sac" else args.sb3_values
    print(f"{args.algo.upper()}, {args.steps:,} env steps per run, SB3 with {values} values, CPU: {cpu}")
    print(f"bf16 instructions: {native_bf16()}; rlfw with network.precision={', '.join(args.precisions)}")
    print(f"{'env':15} {'framework':9} {'seed':>4} {'steps/s':>8} {'train return':>12} {'eval return':>11}")
    for env in args.envs:
        sides = [f"rlfw {p}" for p in args.precisions]
        runs: dict[str, list[dict]] = {name: [] for name in [*sides, "sb3"]}
        for seed in args.seeds:  # the sides take turns, so the machine's drift falls on all alike
            for name in runs:
                r = (
                    run_rlfw(args.algo, env, seed, args.steps, name.split()[1])
                    if name in sides
                    else run_sb3(args.algo, env, seed, args.steps, args.sb3_values)
                )
                runs[name].append(r)
                print(
                    f"{env:15} {name:9} {seed:4d} {r['steps_per_s']:8.0f} {r['train_return']:12.1f} {r['eval_return']:11.1f}",
                    flush=True,
                )
        med = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in runs.items()}
        sb = med["sb3"]
        for side in sides:
            rl = med[side]
            print(
                f"{env}: median steps/s {side} {rl['steps_per_s']:.0f} vs SB3 {sb['steps_per_s']:.0f}"
                f" (ratio {rl['steps_per_s'] / sb['steps_per_s']:.2f}); median train return {rl['train_return']:.0f} vs"
                f" {sb['train_return']:.0f}; median eval return {rl['eval_return']:.0f} vs {sb['eval_return']:.0f}",
                flush=True,
            )
        for precision in args.precisions:
            floor = (ppo_floor if args.algo == "ppo" else sac_floor)(
                f"env={PRESETS[env]}", f"network.precision={precision}"
            )
            alone, turns = described(args.algo, floor, 3)
            print(
                f"{env}: rlfw {precision}'s floor {floor['steps_per_s']:.0f} steps/s, in turns"
                f" {floor['steps_per_s_in_turns']:.0f} ({alone}; {turns})",
                flush=True,
            )
        print(f"{work(args.algo, env, args.sb3_values)}\n", flush=True)


if __name__ == "__main__":
    off_sys_path()
    main()
