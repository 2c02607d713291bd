"""BenchMARL's side of ``benchmarks/benchmarl_spread.py``: one run, in BenchMARL's venv, printed as one JSON line.

/path/to/benchmarl-venv/bin/python benchmarks/benchmarl_side.py mappo|ippo SEED
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import torch
from benchmarl.algorithms import IppoConfig, MappoConfig
from benchmarl.environments import PettingZooTask
from benchmarl.environments.pettingzoo.common import PettingZooClass
from benchmarl.experiment import Experiment, ExperimentConfig
from benchmarl.models.mlp import MlpConfig
from mpe2 import simple_spread_v3
from torchrl.envs import PettingZooWrapper

STEPS = 49_152  # as benchmarks/benchmarl_spread.py
ENVS, ROLLOUT, EPOCHS, MINIBATCHES, LR, ENT = 8, 128, 10, 2, 7e-4, 0.01
SPREAD = {"N": 3, "max_cycles": 25, "local_ratio": 0.5, "continuous_actions": False}


class Spread(PettingZooClass):
    """BenchMARL's Simple Spread task with mpe2's env: its own imports MPE from pettingzoo.mpe, gone in 1.27."""

    def get_env_fun(self, num_envs, continuous_actions, seed, device):
        return lambda: PettingZooWrapper(
            simple_spread_v3.parallel_env(**SPREAD), categorical_actions=True, device=device, seed=seed,
            return_state=True, use_mask=False,
        )  # fmt: skip


def run(algo: str, seed: int) -> dict:
    torch.set_num_threads(1)
    shipped = PettingZooTask.SIMPLE_SPREAD.get_from_yaml()
    task = Spread(name=shipped.name, config={**shipped.config, "N": 3, "max_cycles": 25, "local_ratio": 0.5})
    config = ExperimentConfig.get_from_yaml()
    batch = ENVS * ROLLOUT
    for key, value in {
        "max_n_frames": STEPS,
        "on_policy_collected_frames_per_batch": batch,
        "on_policy_n_envs_per_worker": ENVS,
        "on_policy_n_minibatch_iters": EPOCHS,
        "on_policy_minibatch_size": batch // MINIBATCHES,
        "lr": LR,
        "adam_eps": 1e-8,
        "clip_grad_val": 0.5,
        "gamma": 0.99,
        "prefer_continuous_actions": False,
        "evaluation_interval": STEPS,  # the first iteration's and the last's
        "evaluation_episodes": 10,
        "render": False,
        "loggers": ["csv"],
        "create_json": False,
        "save_folder": tempfile.mkdtemp(),
    }.items():
        setattr(config, key, value)
    algorithm = (MappoConfig if algo == "mappo" else IppoConfig).get_from_yaml()
    algorithm.entropy_coef, algorithm.lmbda, algorithm.clip_epsilon = ENT, 0.95, 0.2
    model = MlpConfig(num_cells=[64, 64], activation_class=torch.nn.Tanh, layer_class=torch.nn.Linear)
    experiment = Experiment(task, algorithm, model, seed=seed, config=config, critic_model_config=model)
    start = time.perf_counter()
    experiment.run()
    wall = time.perf_counter() - start
    found = sorted(Path(config.save_folder).rglob("*.csv"))
    rewards = next(f for f in found if "eval" in f.name and "episode_reward_mean" in f.name and "agent" in f.name)
    last = rewards.read_text().strip().splitlines()[-1].split(",")
    return {"steps": experiment.total_frames, "wall_s": wall, "return": float(last[-1])}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], int(sys.argv[2]))))
