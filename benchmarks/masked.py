"""rlfw's PPO with action masks against sb3-contrib's MaskablePPO, and what a large mask costs.

    pip install -e ".[bench]" && python benchmarks/masked.py [--steps 40960] [--seeds 0 1]   # from the repository's root

The env is sb3-contrib's ``InvalidActionEnvDiscrete`` (its identity task, 100 steps an episode; its masks
from numpy, ``benchmarks/masked_env.py``):
80 actions with 60 closed at each step, and, for the cost of a large mask, 339 actions (the size of the
``MultiBinary(339)`` mask in sb3-contrib issue #283) with 300 closed. Both sides train the same env steps
with the same values (CleanRL's PPO defaults: 4 envs, rollouts of 128 steps, 4 minibatches, 4 epochs,
lr 2.5e-4, gamma 0.99, GAE lambda 0.95, clip 0.2, entropy 0.01, value 0.5, gradient norm 0.5, 64x64 tanh
trunks, separate for actor and critic), each run in its own process with one torch thread, one at a
time, no evaluation during training. Prints each run's env steps per second of training (set-up left
out), medians, the ratio rlfw / MaskablePPO on the 80-action task (the goal: at least 1.5) and the
ratio of rlfw's masked run to ``env.mask=none`` on the 339-action one (the goal: at most 1.2).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from masked_env import ID
from time_to_score import run_rlfw

PPO = dict(n_steps=128, batch_size=128, n_epochs=4, learning_rate=2.5e-4, gamma=0.99, gae_lambda=0.95)
PPO_MORE = dict(clip_range=0.2, ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5)
RLFW = [
    "algo=ppo",
    "env=gym",
    "env.imports=[benchmarks.masked_env]",
    "num_envs=4",
    "replay.num_steps=128",
    "replay.minibatches=4",
    "replay.epochs=4",
    "optim.lr=2.5e-4",
    "optim.anneal_lr=false",
    "gamma=0.99",
    "replay.gae_lambda=0.95",
    "loss.clip=0.2",
    "loss.ent_coef=0.01",
    "loss.vf_coef=1.0",  # rlfw's value loss is 1/2 (V - R)^2, SB3's MSE: the same weight
    "network.head.shared=false",
    "network.encoder.hidden=[64,64]",
    "network.encoder.activation=tanh",
    "trainer.gradient_clip_val=0.5",
]


def rlfw(env: str, seed: int, steps: int, mask: str = "auto") -> float:
    run = run_rlfw(
        *RLFW,
        f"env.id={ID.format(env)}",
        f"env.mask={mask}",
        f"seed={seed}",
        f"total_env_steps={steps}",
        f"eval.every={steps}",
        "eval.episodes=1",
        "checkpoint.every=null",
        "stop_when_solved=false",
    )
    return run["steps_per_s"]


def maskable(env: str, seed: int, steps: int) -> float:
    import subprocess

    out = subprocess.run(
        [sys.executable, __file__, "--sb3", env, str(seed), str(steps)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["steps_per_s"]


def sb3_child(env: str, seed: int, steps: int) -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    envs = make_vec_env(ID.format(env), n_envs=4, seed=seed)
    policy_kwargs = dict(net_arch=dict(pi=[64, 64], vf=[64, 64]), activation_fn=torch.nn.Tanh)
    model = MaskablePPO("MlpPolicy", envs, seed=seed, policy_kwargs=policy_kwargs, **PPO, **PPO_MORE)
    started = time.perf_counter()
    model.learn(total_timesteps=steps)
    print(json.dumps({"steps_per_s": model.num_timesteps / (time.perf_counter() - started)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=40_960)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--sb3", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sb3:
        sb3_child(args.sb3[0], int(args.sb3[1]), int(args.sb3[2]))
        return
    sides = {
        "rlfw 80": lambda s: rlfw("80", s, args.steps),
        "MaskablePPO 80": lambda s: maskable("80", s, args.steps),
        "rlfw 339": lambda s: rlfw("339", s, args.steps),
        "rlfw 339 none": lambda s: rlfw("339", s, args.steps, mask="none"),
    }
    runs: dict[str, list[float]] = {name: [] for name in sides}
    for seed in args.seeds:
        for name, side in sides.items():  # the sides take turns, seed by seed
            runs[name].append(side(seed))
            print(f"{name:15} seed {seed}: {runs[name][-1]:7.0f} env steps/s", flush=True)
    median = {name: statistics.median(values) for name, values in runs.items()}
    print(
        f"medians (env steps/s): rlfw {median['rlfw 80']:.0f} vs MaskablePPO {median['MaskablePPO 80']:.0f}"
        f" (ratio {median['rlfw 80'] / median['MaskablePPO 80']:.2f}); 339 actions: masked"
        f" {median['rlfw 339']:.0f} vs env.mask=none {median['rlfw 339 none']:.0f}"
        f" (time ratio {median['rlfw 339 none'] / median['rlfw 339']:.2f})"
    )


if __name__ == "__main__":
    main()
