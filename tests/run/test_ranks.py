"""One run on two processes (``trainer.strategy=ddp`` on CPU, gloo), started from a plain script."""

import csv
import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.helpers import ROOT, made_once, run_cli, run_printed
from tests.state.test_resume import assert_same_run, wait_for_checkpoints


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
    # rank 1 wrote nothing of the run, only its own state beside each checkpoint (for a resume)
    written = sorted(str(p.relative_to(tmp_path / "node1" / "run")) for p in (tmp_path / "node1" / "run").rglob("*"))
    assert written == ["checkpoints", "checkpoints/env_steps=000000004096.rank1.state"]  # the one at the end


DDP = ("trainer.strategy=ddp", "trainer.devices=2", "algo=ppo", "total_env_steps=8192", "eval.every=2048")
DDP_RUN = (*DDP, "checkpoint.every=1024", "stop_when_solved=false", "threads=1")


@pytest.fixture(scope="session")
def whole_ddp_run(tmp_path_factory):
    """The ddp run never stopped, through the command line, once per test session."""

    def train(folder: Path) -> None:
        result = run_cli(*DDP_RUN, f"hydra.run.dir={folder / 'run'}", cwd=folder)
        assert result.returncode == 0, result.stderr[-3000:]
        (folder / "output.txt").write_text(result.stdout + result.stderr)

    return made_once(tmp_path_factory, "whole_ddp_run", train)


def test_the_command_line_runs_ddp_and_rank_zero_writes_the_run(whole_ddp_run):
    assert "GLOBAL_RANK: 1, MEMBER: 2/2" in (whole_ddp_run / "output.txt").read_text()
    summary = json.loads((whole_ddp_run / "run" / "summary.json").read_text())
    assert summary["env_steps"] == 8192 and "trainer.strategy=ddp" in summary["overrides"]
    with open(whole_ddp_run / "run" / "metrics.csv") as f:
        evals = [int(row["step"]) for row in csv.DictReader(f) if row["eval/return_mean"]]
    assert evals == [2048, 4096, 6144, 8192]  # env steps of both ranks; one row per evaluation, from rank 0 alone


def start_ddp(folder, *overrides: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "rlfw", *DDP_RUN, *overrides, f"hydra.run.dir={folder}"],
        cwd=folder.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: rank 0 and the rank 1 it starts
    )


# Every rank killed at once (a node failure), then resumed: -m seeds. The README's command kills one rank
# (the other stops) and resumes exactly from the newest whole checkpoint, as this one does, in the test below.
@pytest.mark.seeds
def test_a_killed_two_process_run_resumes_as_the_one_never_stopped(tmp_path, whole_ddp_run):
    killed = tmp_path / "killed"
    process = start_ddp(killed)
    wait_for_checkpoints(process, killed, 2)
    assert len(list((killed / "checkpoints").glob("*.rank1.state"))) >= 1  # rank 1's own envs, replay, generators
    os.killpg(process.pid, signal.SIGKILL)  # every rank at once, as a node failure would
    process.wait()
    assert not (killed / "summary.json").exists(), "the run finished before it was killed: nothing was tested"
    resumed = run_cli(*DDP_RUN, "resume=auto", f"hydra.run.dir={killed}", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert_same_run(killed, whole_ddp_run / "run")


def test_sigterm_to_rank_zero_stops_both_ranks_at_one_checkpoint_and_the_resume_ends_as_the_whole_run(
    tmp_path, whole_ddp_run
):
    stopped = tmp_path / "stopped"
    process = start_ddp(stopped)
    wait_for_checkpoints(process, stopped, 1)
    process.send_signal(signal.SIGTERM)  # rank 0 alone: rank 1 learns of it at the next safe point
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM, stderr[-3000:]
    line = stderr.strip().splitlines()[-1]
    assert line.startswith("rlfw: stopped by SIGTERM at ") and "resume=auto" in line, line
    newest = max((stopped / "checkpoints").glob("env_steps=*.ckpt"))
    assert (stopped / "checkpoints" / newest.name.replace(".ckpt", ".rank1.state")).is_file()
    resumed = run_printed(line, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert_same_run(stopped, whole_ddp_run / "run")


def test_a_killed_rank_stops_the_other_in_one_line_whose_command_resumes_exactly(tmp_path, whole_ddp_run):
    folder = tmp_path / "rank_killed"
    process = start_ddp(folder)
    wait_for_checkpoints(process, folder, 1)
    rank_one = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
    assert len(rank_one) == 1, rank_one  # the process Lightning started for rank 1
    os.kill(int(rank_one[0]), signal.SIGKILL)
    _, stderr = process.communicate(timeout=120)  # rank 0 does not wait for it
    assert process.returncode == 1 and "Traceback" not in stderr, stderr[-3000:]
    line = stderr.strip().splitlines()[-1]
    assert re.fullmatch(
        r"rlfw: rank 0 lost the other ranks of this ddp run \(Connection [a-z ]+\) at [\d,]+ env steps; newest whole"
        rf" checkpoint: {re.escape(str(folder / 'checkpoints' / 'last.ckpt'))}; resume with: .*",
        line,
    ), line
    resumed = run_printed(line, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert_same_run(folder, whole_ddp_run / "run")
