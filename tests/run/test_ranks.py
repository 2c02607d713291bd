"""One run on two processes (``trainer.strategy=ddp`` on CPU, gloo), started from a plain script."""

import csv
import json
import os
import socket
import subprocess
import sys

import pytest
import torch

from tests.helpers import ROOT, run_cli


def ddp_run(tmp_path, *overrides: str) -> tuple[dict, dict]:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "run" / "ddp_script.py"), str(tmp_path), "trainer.devices=2", *overrides],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return tuple(torch.load(tmp_path / f"rank{r}.pt", weights_only=False) for r in (0, 1))


@pytest.mark.slow
def test_two_ranks_end_with_the_same_parameters_and_ppo_still_learns_cartpole(tmp_path):
    zero, one = ddp_run(tmp_path, "total_env_steps=60_000")
    assert zero["params"].keys() == one["params"].keys()
    for key, value in zero["params"].items():
        torch.testing.assert_close(value, one["params"][key], rtol=0, atol=0, msg=key)
    # env steps count both ranks' envs; each rank stepped half of them
    assert zero["env_steps"] == one["env_steps"] == 2 * zero["own_env_steps"] == 2 * one["own_env_steps"]
    assert zero["updates"] == one["updates"] > 0 and zero["evals"] == one["evals"]
    assert zero["evals"][-1]["return_mean"] >= 475, zero["evals"]  # solved (stop_when_solved)
    assert (tmp_path / "run" / "checkpoints" / "last.ckpt").exists()


def test_the_command_line_runs_ddp_and_rank_zero_writes_the_run(tmp_path):
    result = run_cli(
        "trainer.strategy=ddp",
        "trainer.devices=2",
        "total_env_steps=2048",
        "eval.every=1024",
        f"hydra.run.dir={tmp_path / 'run'}",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "GLOBAL_RANK: 1, MEMBER: 2/2" in result.stdout + result.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["env_steps"] == 2048 and "trainer.strategy=ddp" in summary["overrides"]
    with open(tmp_path / "run" / "metrics.csv") as f:
        evals = [int(row["step"]) for row in csv.DictReader(f) if row["eval/return_mean"]]
    assert evals == [1024, 2048]  # env steps of both ranks; one row per evaluation, from rank 0 alone


def test_two_nodes_of_one_process_each_end_identical_and_node_zero_alone_writes_the_run(tmp_path):
    """Two machines as Slurm or torchrun would start them, here on one: the same command on each, told
    its node rank, meeting at MASTER_ADDR:MASTER_PORT; each writes into its own folder (no shared disk)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    args = ("trainer.num_nodes=2", "trainer.devices=1", "total_env_steps=4096", "eval.every=2048")
    for rank in (0, 1):
        (tmp_path / f"node{rank}").mkdir()
    nodes = [
        subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "run" / "ddp_script.py"), str(tmp_path / f"node{rank}"), *args],
            cwd=ROOT,
            env={**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "NODE_RANK": str(rank)}
            | {"LOCAL_RANK": "0", "WORLD_SIZE": "2"},
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    for node in nodes:
        _, stderr = node.communicate(timeout=600)
        assert node.returncode == 0, stderr[-3000:]
    zero = torch.load(tmp_path / "node0" / "rank0.pt", weights_only=False)
    one = torch.load(tmp_path / "node1" / "rank1.pt", weights_only=False)
    for key, value in zero["params"].items():
        torch.testing.assert_close(value, one["params"][key], rtol=0, atol=0, msg=key)
    assert zero["env_steps"] == one["env_steps"] == 2 * zero["own_env_steps"] == 4096 and zero["evals"] == one["evals"]
    assert (tmp_path / "node0" / "run" / "checkpoints" / "last.ckpt").is_file()
    assert not (tmp_path / "node1" / "run").exists()  # rank 1 wrote nothing of the run
