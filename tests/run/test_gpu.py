"""The GPU path: ``trainer.accelerator=auto`` acts, computes the loss and steps the optimizer on the
GPU, replay batches arrive from pinned memory, and bf16-mixed trains the CNN. Skipped without CUDA
(CI has none); run on a GPU machine with ``pytest tests/run/test_gpu.py``."""

from pathlib import Path

import pytest
import torch

from rlfw.batch import Batch, to_device
from rlfw.config.build import build_parts
from rlfw.config.job import Job
from rlfw.run.train import train
from tests.helpers import config

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU on this machine")


def run_recording(tmp_path: Path, *overrides: str) -> tuple[dict, list[dict]]:
    """Trains ``overrides``; returns the summary and, for each loss call, where its inputs were."""
    cfg = config(*overrides)
    parts = build_parts(cfg)
    loss, seen = parts.loss, []

    def recording(batch, net, target_net):
        seen.append(
            {
                "batch": {k: v.device.type for k, v in batch.items()},
                "obs_dtype": batch.obs.dtype,
                "net": next(net.parameters()).device.type,
                "autocast": torch.is_autocast_enabled("cuda") and torch.get_autocast_dtype("cuda"),
            }
        )
        return loss(batch, net, target_net)

    parts.loss = recording
    return train(Job(cfg, parts, {"algo": "test", "env": "test"}, list(overrides), []), tmp_path), seen


@pytest.mark.parametrize("algo, budget", [("ppo", 50_000), ("dqn", 20_000)])
def test_auto_accelerator_learns_catch_on_the_gpu(algo, budget, tmp_path):
    summary, seen = run_recording(
        tmp_path,
        f"algo={algo}",
        "env=catch",
        "trainer.accelerator=auto",
        f"total_env_steps={budget}",
        "eval.every=5000",
    )
    assert seen and all(s["net"] == "cuda" and set(s["batch"].values()) == {"cuda"} for s in seen)
    assert seen[0]["obs_dtype"] == torch.uint8  # pixels stay uint8 until the encoder scales them
    assert summary["eval_return_mean"] >= 0.9  # a random policy scores about -0.6


@pytest.mark.parametrize("algo", ["ppo", "dqn"])
def test_bf16_mixed_trains_the_nature_cnn_on_pong(algo, tmp_path):
    budget = (
        ["total_env_steps=4096"]
        if algo == "ppo"
        else ["total_env_steps=3000", "replay.learning_starts=1000", "replay.capacity=10000"]
    )
    summary, seen = run_recording(
        tmp_path,
        f"algo={algo}",
        "env=pong",
        "trainer.precision=bf16-mixed",
        *budget,
        "eval.episodes=2",
        "eval.every=1_000_000",
    )
    assert seen and all(s["autocast"] == torch.bfloat16 and s["net"] == "cuda" for s in seen)
    ckpt = torch.load(tmp_path / "checkpoints" / "last.ckpt", weights_only=True)
    weights = [v for k, v in ckpt["state_dict"].items() if k.startswith("net.")]
    assert all(w.dtype == torch.float32 and torch.isfinite(w).all() for w in weights)  # weights stay 32-bit
    assert summary["updates"] > 0


def test_batches_reach_the_gpu_unchanged():
    batch = Batch(obs=torch.randint(0, 255, (64, 4, 84, 84), dtype=torch.uint8), reward=torch.randn(64))
    moved = to_device(batch, torch.device("cuda"))
    torch.cuda.synchronize()
    assert all(
        moved[k].is_cuda and moved[k].dtype == v.dtype and torch.equal(moved[k].cpu(), v) for k, v in batch.items()
    )
