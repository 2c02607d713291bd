"""d3rlpy's side of ``benchmarks/d3rlpy_offline.py``, run by the python of a venv with d3rlpy 2.8.1 (which
pins gymnasium 1.0.0, so it cannot share rlfw's venv):

    python benchmarks/d3rlpy_side.py <algo> <seed> <updates> <data.npz> <env id>

Learns ``updates`` updates from the transitions in ``data.npz`` (what rlfw read from the Minari dataset:
obs, action, reward, terminated, truncated, in episode order), one torch thread, then plays 10 greedy
episodes; prints one JSON line: the training seconds (``fit``, set-up and evaluation left out) and the
mean return."""

from __future__ import annotations

import json
import sys
import time

import d3rlpy
import gymnasium as gym
import numpy as np
import torch


def config(algo: str):
    """d3rlpy's config with rlfw's values (``conf/algo/<algo>.yaml``): 256x256 ReLU nets, batches of 256,
    standardized observations, and for CQL a fixed conservative weight of 5 and SAC's soft target."""
    scaler = d3rlpy.preprocessing.StandardObservationScaler()
    if algo == "td3_bc":
        return d3rlpy.algos.TD3PlusBCConfig(observation_scaler=scaler, alpha=2.5)
    if algo == "iql":
        return d3rlpy.algos.IQLConfig(observation_scaler=scaler, expectile=0.7, weight_temp=3.0, max_weight=100.0)
    if algo == "cql":  # rlfw's cql.yaml: actor and temperature lr 1e-4, critics 3e-4, alpha_cql 5 (not learned)
        return d3rlpy.algos.CQLConfig(
            observation_scaler=scaler, conservative_weight=5.0, alpha_learning_rate=0.0, soft_q_backup=True
        )
    raise SystemExit(f"d3rlpy_side.py: no such algo {algo!r}; one of td3_bc, iql, cql")


def main() -> None:
    algo, seed, updates, data_file, env_id = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    torch.set_num_threads(1)
    d3rlpy.seed(seed)
    data = np.load(data_file)
    dataset = d3rlpy.dataset.MDPDataset(
        data["obs"], data["action"], data["reward"], data["terminated"], timeouts=data["truncated"]
    )
    learner = config(algo).create(device="cpu")
    learner.build_with_dataset(dataset)
    start = time.perf_counter()
    learner.fit(
        dataset,
        n_steps=updates,
        n_steps_per_epoch=updates,
        show_progress=False,
        save_interval=updates + 1,
        logger_adapter=d3rlpy.logging.NoopAdapterFactory(),
    )
    seconds = time.perf_counter() - start
    env, returns = gym.make(env_id), []
    for episode in range(10):
        obs, _ = env.reset(seed=seed * 1000 + episode)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(learner.predict(obs[None])[0])
            total, done = total + float(reward), terminated or truncated
        returns.append(total)
    print(json.dumps({"updates": updates, "seconds": seconds, "return": float(np.mean(returns))}))


if __name__ == "__main__":
    main()
