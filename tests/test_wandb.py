"""``logger=wandb``, offline as on any machine without an account: read back from the files W&B wrote."""

import csv
import http.server
import json
import logging
import os
import socket
import threading
import time

import pytest

from rlfw import wandb_run
from tests.helpers import run_cli, wandb_records
from tests.test_train import run


@pytest.fixture
def no_account(monkeypatch, tmp_path):
    """No API key anywhere, no WANDB_MODE: what a new user has. HOME holds no .netrc."""
    for name in ("WANDB_API_KEY", "WANDB_MODE", "WANDB_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))


def test_a_run_without_an_account_goes_offline_and_holds_config_history_summary_and_files(tmp_path, no_account, caplog):
    run_dir = tmp_path / "run"
    with caplog.at_level(logging.INFO, logger="rlfw"):
        summary = run(
            run_dir, "logger=wandb", "logger.wandb.log_checkpoint=true", "logger.wandb.log_video=true", "eval.video=true",
            "total_env_steps=1024", "eval.every=512", "log_every=5", "seed=3",
        )
    wb = wandb_records(run_dir)
    assert wb["run"].run_group == "test_test" and wb["run"].job_type == "train"  # tests.test_train.run names both "test"
    assert wb["run"].display_name == "test_test_seed3" and list(wb["run"].tags) == ["algo=test", "env=test", "seed=3"]
    resolved = wb["config"]
    assert resolved["seed"] == 3 and resolved["replay"]["num_steps"] == 64 and resolved["run_dir"] == str(run_dir.resolve())
    assert resolved["overrides"][0] == "logger=wandb" and resolved["choices"] == {"algo": "test", "env": "test"}
    assert ("*", "env_steps") == wb["metrics"][-1]  # every metric against env steps, defined last
    with open(run_dir / "metrics.csv") as f:
        csv_evals = [(int(r["step"]), float(r["eval/return_mean"])) for r in csv.DictReader(f) if r["eval/return_mean"]]
    wb_evals = [(r["env_steps"], r["eval/return_mean"]) for r in wb["history"] if "eval/return_mean" in r]
    assert wb_evals == csv_evals and [s for s, _ in wb_evals] == [512, 1024]
    assert any("train/loss" in r for r in wb["history"])
    assert wb["summary"]["eval_return_mean"] == summary["eval_return_mean"] == json.loads((run_dir / "summary.json").read_text())["eval_return_mean"]
    ids = {name.split("-")[0] for name, _ in wb["artifacts"]}
    assert sorted(t for _, t in wb["artifacts"]) == ["model", "video"] and ids == {wb["run"].run_id}
    assert f"upload it with: wandb sync {run_dir / 'wandb'}" in caplog.text


def test_wandb_mode_disabled_turns_it_off(tmp_path, no_account, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "disabled")
    run(tmp_path, "logger=wandb", "total_env_steps=512", "eval.every=512")
    assert (tmp_path / "metrics.csv").exists() and not (tmp_path / "wandb").exists()


def test_a_sweep_is_one_wandb_group_with_tensorboard_beside_it_and_nothing_in_the_working_folder(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WANDB_")} | {"HOME": str(tmp_path / "home")}
    work = tmp_path / "work"
    work.mkdir()
    sweep = work / "sweep_7"
    result = run_cli(
        "-m", "logger=[wandb,tensorboard]", "seed=0,1", "total_env_steps=512", "eval.every=512",
        f"hydra.sweep.dir={sweep}", cwd=work, env=env,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in work.iterdir()) == ["sweep_7"]  # no ./wandb
    for job in sorted(sweep.glob("*_seed=*")):
        assert wandb_records(job)["run"].run_group == "sweep_7"
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
