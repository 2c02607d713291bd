"""Training in-process: reproducibility, checkpoints, loggers, generic gymnasium envs."""

import csv
import logging
from pathlib import Path

import pytest
import torch

from rlfw.config.build import build_parts
from rlfw.config.job import Job
from rlfw.machine import native_bf16
from rlfw.run.train import train
from tests.helpers import SMALL_SAC, config, run


def metric_rows(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv") as f:
        return [{k: v for k, v in row.items() if not k.startswith("time/")} for row in csv.DictReader(f)]


def final_parameters(run_dir: Path) -> dict[str, torch.Tensor]:
    return torch.load(run_dir / "checkpoints" / "last.ckpt", weights_only=True)["state_dict"]


@pytest.mark.parametrize(
    "args",
    [
        ("algo=dqn", "total_env_steps=1500", "replay.learning_starts=500"),
        ("algo=double_dqn", "total_env_steps=1500", "replay.learning_starts=500"),
        ("algo=a2c", "total_env_steps=1500"),
        ("algo=ppo", "total_env_steps=2048"),
        ("algo=dqn", "env=catch", "total_env_steps=1500", "replay.learning_starts=500"),
    ],
    ids=["dqn", "double_dqn", "a2c", "ppo", "pixels-catch"],
)
def test_same_seed_same_metrics_and_parameters_other_seed_differs(args, tmp_path):
    args = (*args, "eval.every=750", "log_every=10", "stop_when_solved=false")
    for name, seed in (("a", 0), ("b", 0), ("c", 1)):
        run(tmp_path / name, *args, f"seed={seed}")
    a, b, c = (metric_rows(tmp_path / n) for n in "abc")
    assert len(a) > 3 and a == b
    assert a != c
    pa, pb = final_parameters(tmp_path / "a"), final_parameters(tmp_path / "b")
    assert all(torch.equal(pa[k], pb[k]) for k in pa)


def test_checkpoint_holds_networks_target_optimizer_and_counters(tmp_path):
    summary = run(tmp_path, "algo=dqn", "total_env_steps=1200", "checkpoint.every=500", "replay.learning_starts=300")
    ckpt = torch.load(tmp_path / "checkpoints" / "last.ckpt", weights_only=True)  # tensors and plain containers only
    assert ckpt["run"]["env_steps"] == summary["env_steps"] == 1200  # ends exactly at total_env_steps
    assert ckpt["run"]["updates"] == summary["updates"] > 0
    keys = ckpt["state_dict"].keys()
    assert any(k.startswith("net.") for k in keys) and any(k.startswith("target_net.") for k in keys)
    assert ckpt["optimizer"]["state"]  # Adam moments
    replay = torch.load(tmp_path / "checkpoints" / ckpt["replay_file"], weights_only=True)
    assert replay["store"]["size"] == 1200  # every step stored, one env
    assert not list((tmp_path / "checkpoints").glob("*.partial"))


@pytest.mark.parametrize(
    "args",
    [
        # clipped: under mixed precision rlfw's Adam is foreach, whose gradients the update unscales first
        ("algo=dqn", "trainer.gradient_clip_val=1.0", "total_env_steps=1500", "replay.learning_starts=500"),
        ("algo=ppo", "total_env_steps=2048"),  # a sampled policy, and GAE's bootstrap forward
        ("algo=sac", "env=pendulum", *SMALL_SAC, "total_env_steps=300", "replay.learning_starts=100"),
    ],
    ids=["dqn-clipped", "ppo", "sac"],
)
def test_bf16_mixed_acts_and_trains_on_the_cpu(args, tmp_path, caplog):
    """Under autocast the network's outputs are bf16, which numpy and the float32 replay do not take:
    acting and the rollout's bootstrap turn them back to float32. A CPU that would emulate bf16 is named."""
    cfg = config(*args, "trainer.precision=bf16-mixed", "eval.every=100000")
    parts = build_parts(cfg)
    dtypes = set()
    parts.net.register_forward_hook(lambda net, inputs, out: dtypes.update(v.dtype for v in out.values()))
    with caplog.at_level(logging.WARNING, logger="rlfw"):
        summary = train(Job(cfg, parts, {"algo": "test", "env": "test"}, [], []), tmp_path)
    assert torch.bfloat16 in dtypes  # the forwards ran under bf16 autocast
    assert summary["updates"] > 0 and summary["env_steps"] == cfg["total_env_steps"]
    assert ("this CPU has no bf16 instructions" in caplog.text) == (native_bf16() is None)


def test_tensorboard_logger_writes_events(tmp_path):
    run(tmp_path, "logger=tensorboard", "total_env_steps=512", "eval.every=512")
    assert list((tmp_path / "tensorboard").glob("events.out.tfevents.*"))


def test_any_gymnasium_id_through_the_generic_env(tmp_path):
    summary = run(
        tmp_path,
        "algo=dqn",
        "env=gym",
        "env.id=MountainCar-v0",
        "total_env_steps=600",
        "replay.learning_starts=200",
        "eval.every=600",
        "eval.episodes=2",
    )
    assert summary["env"] == "MountainCar-v0" and summary["eval_return_mean"] == -200.0


def net_change(tmp_path: Path, cfg: dict) -> float:
    """Largest absolute weight change of the network between its initial state and last.ckpt."""
    initial = build_parts(cfg).net.state_dict()
    final = torch.load(tmp_path / "checkpoints" / "last.ckpt", weights_only=True)["state_dict"]
    return max(float((final[f"net.{k}"] - v).abs().max()) for k, v in initial.items())


def test_gradient_clipping_and_per_part_lr_through_config(tmp_path):
    args = ("algo=a2c", "total_env_steps=400", "eval.every=400", "+optim.groups.critic.lr=0.01")
    clipped = run(tmp_path / "clipped", *args, "trainer.gradient_clip_val=1e-8")
    free = run(tmp_path / "free", *args, "trainer.gradient_clip_val=null")
    assert clipped["updates"] == free["updates"] == 10
    # RMSprop's step is lr * g / (sqrt(v) + eps): a gradient clipped to norm 1e-8 barely moves anything.
    assert net_change(tmp_path / "clipped", config(*args)) < 1e-4
    assert net_change(tmp_path / "free", config(*args)) > 1e-3
    ckpt = torch.load(tmp_path / "clipped" / "checkpoints" / "last.ckpt", weights_only=True)
    groups = ckpt["optimizer"]["param_groups"]
    assert {g["name"]: g["lr"] for g in groups} == {"default": 7e-4, "critic": 0.01}
