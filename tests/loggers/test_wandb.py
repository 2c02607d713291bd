"""``logger=wandb``, offline as on any machine without an account: read back from the files W&B wrote."""

import csv
import http.server
import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from rlfw.loggers import wandb_run
from tests.helpers import run_cli, wandb_records
from tests.offline_data import PENDULUM


def without_account(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a new user: no API key, no WANDB_* at all; HOME is empty (no .netrc)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {k: v for k, v in os.environ.items() if not k.startswith("WANDB_")} | {"HOME": str(home)} | extra


@pytest.fixture
def no_account(monkeypatch, tmp_path):
    for name in [k for k in os.environ if k.startswith("WANDB_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))


# W&B runs go through the command line: wandb keeps process-wide state (its service, wrapped
# stdout) that must not outlive a run inside a shared pytest worker.
def test_a_run_without_an_account_goes_offline_and_holds_config_history_summary_and_files(tmp_path):
    run_dir = tmp_path / "run"
    result = run_cli(
        "logger=wandb",
        "logger.wandb.log_checkpoint=true",
        "logger.wandb.log_video=true",
        "eval.video=true",
        "total_env_steps=1024",
        "eval.every=512",
        "log_every=5",
        "seed=3",
        f"hydra.run.dir={run_dir}",
        cwd=tmp_path,
        env=without_account(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((run_dir / "summary.json").read_text())
    wb = wandb_records(run_dir)
    assert wb["run"].run_group == "ppo_cartpole" and wb["run"].job_type == "train"
    assert wb["run"].display_name == "ppo_cartpole_seed3" and list(wb["run"].tags) == [
        "algo=ppo",
        "env=cartpole",
        "seed=3",
    ]
    resolved = wb["config"]
    assert (
        resolved["seed"] == 3
        and resolved["replay"]["num_steps"] == 64
        and resolved["run_dir"] == str(run_dir.resolve())
    )
    assert resolved["overrides"][0] == "logger=wandb" and resolved["choices"]["algo"] == "ppo"
    assert ("*", "env_steps") == wb["metrics"][-1]  # every metric against env steps, defined last
    with open(run_dir / "metrics.csv") as f:
        csv_evals = [(int(r["step"]), float(r["eval/return_mean"])) for r in csv.DictReader(f) if r["eval/return_mean"]]
    wb_evals = [(r["env_steps"], r["eval/return_mean"]) for r in wb["history"] if "eval/return_mean" in r]
    assert wb_evals == csv_evals and [s for s, _ in wb_evals] == [512, 1024]
    assert any("train/loss" in r for r in wb["history"])
    assert wb["summary"]["eval_return_mean"] == summary["eval_return_mean"]
    ids = {name.split("-")[0] for name, _ in wb["artifacts"]}
    assert sorted(t for _, t in wb["artifacts"]) == ["model", "video"] and ids == {wb["run"].run_id}
    assert f"upload it with: wandb sync {run_dir / 'wandb'}" in result.stdout + result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home", "run"]  # no ./wandb
    # the finished run, extended with resume=auto: it goes on in the same W&B run
    result = run_cli(
        "logger=wandb",
        "total_env_steps=1536",
        "eval.every=512",
        "seed=3",
        "resume=auto",
        f"hydra.run.dir={run_dir}",
        cwd=tmp_path,
        env=without_account(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    files = sorted((run_dir / "wandb").glob("offline-run-*/run-*.wandb"))
    assert len(files) == 2 and files[0].name == files[1].name  # run-<id>.wandb: the same run id twice


def test_wandb_mode_disabled_turns_it_off(tmp_path):
    env = without_account(tmp_path, WANDB_MODE="disabled")
    result = run_cli(
        "logger=wandb",
        "total_env_steps=512",
        "eval.every=512",
        f"hydra.run.dir={tmp_path / 'run'}",
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "run" / "metrics.csv").exists() and not (tmp_path / "run" / "wandb").exists()


def test_a_sweep_is_one_wandb_group_with_tensorboard_beside_it_and_nothing_in_the_working_folder(tmp_path, datasets):
    """An offline sweep (learning from a dataset): its runs' W&B x axis is the updates they made."""
    env = without_account(tmp_path, MINARI_DATASETS_PATH=str(datasets))
    work = tmp_path / "work"
    work.mkdir()
    sweep = work / "sweep_7"
    result = run_cli(
        "-m",
        "logger=[wandb,tensorboard]",
        "algo=bc",
        "env=pendulum",
        "data=minari",
        f"data.id={PENDULUM}",
        "seed=0,1",
        "total_updates=200",
        "replay.updates=100",
        "eval.every=100",
        "eval.episodes=1",
        f"hydra.sweep.dir={sweep}",
        cwd=work,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in work.iterdir()) == ["sweep_7"]  # no ./wandb
    for job in sorted(sweep.glob("*_seed=*")):
        wb = wandb_records(job)
        assert wb["run"].run_group == "sweep_7"
        assert ("*", "updates") == wb["metrics"][-1]  # every metric against the updates made
        assert [r["updates"] for r in wb["history"] if "eval/return_mean" in r] == [100, 200]
        assert list((job / "tensorboard").glob("events.out.tfevents.*")) and (job / "metrics.csv").exists()
    assert len(list(sweep.glob("*_seed=*"))) == 2
    assert (result.stdout + result.stderr).count("upload it with: wandb sync") == 2


def test_the_mode_never_waits_on_the_network(monkeypatch, tmp_path, no_account):
    assert wandb_run.choose_mode(None) == "offline"  # no key
    monkeypatch.setenv("WANDB_API_KEY", "x" * 40)
    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    monkeypatch.setenv("WANDB_BASE_URL", f"http://127.0.0.1:{port}")
    assert wandb_run.choose_mode(None) == "offline"
    # Packets to this address vanish (or, behind a proxy, meet a certificate that is not its own).
    monkeypatch.setenv("WANDB_BASE_URL", "https://10.255.255.1")
    started = time.monotonic()
    assert wandb_run.choose_mode(None) == "offline" and time.monotonic() - started < wandb_run.PROBE_S + 1
    with http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler) as server:  # answers 501
        threading.Thread(target=server.handle_request, daemon=True).start()
        monkeypatch.setenv("WANDB_BASE_URL", f"http://127.0.0.1:{server.server_port}")
        assert wandb_run.choose_mode(None) == "online"
    assert wandb_run.choose_mode("disabled") == "disabled"
    monkeypatch.setenv("WANDB_MODE", "offline")
    assert wandb_run.choose_mode("online") == "offline"  # the environment wins
