"""One run on two processes (``trainer.strategy=ddp`` on CPU, gloo), started from a plain script."""

import csv
import json
import subprocess
import sys

import pytest
import torch

from tests.helpers import ROOT, run_cli


def ddp_run(tmp_path, *overrides: str) -> tuple[dict, dict]:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "run" / "ddp_script.py"), str(tmp_path), *overrides],
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
