"""``python -m rlfw ...`` as a user runs it: bad input, Hydra's flags, a real short run."""

import json

import pytest
import torch

from tests.helpers import run_cli

BAD = [
    (["algo=nope"], "Could not find 'algo/nope'"),
    (["env=nope"], "Could not find 'env/nope'"),
    (["loss.name=bogus"], "loss.name='bogus': not a registered loss; valid: a2c, double_dqn, dqn, ppo"),
    (["env=gym", "env.id=NoSuch-v0"], "env.id='NoSuch-v0': not a registered gymnasium id"),
    (["replay.num_steps=abc"], "replay.num_steps='abc': expected int"),
    (["num_envs=-2"], "num_envs=-2: must be >= 1"),
    (["algo=dqn", "replay.batch_size=200000"], "replay.batch_size=200000: must not exceed replay.capacity=100000"),
    (["algo=dqn", "env=gym", "env.id=Pendulum-v1"], "network/head=q needs a Discrete action space"),
    (["algo=dqn", "target=none"], "target=none: loss=dqn needs a target network"),
    (["loss=dqn"], "loss=dqn: needs network outputs q; network/head=actor_critic gives logits, value"),
    (["+replay.bogus=1"], "replay.bogus: unknown key for replay=rollout"),
    (["+optim.groups.trunk.lr=0.1"], "optim.groups.trunk: not a part of this network; parts: actor, critic"),
    (["+trainer.no_such_flag=1"], "unexpected keyword argument 'no_such_flag'"),
    pytest.param(
        ["trainer.accelerator=gpu"], "rlfw: config error: trainer: ",
        marks=pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU"),
    ),
    (["trainer.accelerator=tpu"], "rlfw: config error: trainer: "),
]


@pytest.mark.parametrize("args, message", BAD)
def test_bad_input_fails_before_training_with_one_clear_line(tmp_path, args, message):
    run_dir = tmp_path / "run"
    result = run_cli(*args, f"hydra.run.dir={run_dir}")
    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    if result.stderr.startswith("rlfw: config error:"):
        assert len(result.stderr.strip().splitlines()) == 1
    assert not (run_dir / "summary.json").exists()
    assert not (run_dir / "checkpoints").exists()


def test_cfg_job_prints_the_composed_config_without_training(tmp_path):
    result = run_cli("algo=dqn", "env=acrobot", "--cfg", "job", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "id: Acrobot-v1" in result.stdout and "name: dqn" in result.stdout
    assert "batch_size: 128" in result.stdout  # from conf/tuned/dqn_acrobot.yaml
    assert not (tmp_path / "outputs").exists()


def test_short_run_writes_its_folder_and_returns_the_eval(tmp_path):
    run_dir = tmp_path / "run"
    result = run_cli("algo=ppo", "total_env_steps=2048", "eval.every=1024", "log_every=1", f"hydra.run.dir={run_dir}")
    assert result.returncode == 0, result.stderr
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["env_steps"] == 2048 and summary["algo"] == "ppo" and summary["env"] == "CartPole-v1"
    assert [e["env_steps"] for e in summary["evals"]] == [1024, 2048]
    assert summary["eval_return_mean"] == summary["evals"][-1]["return_mean"] > 0
    assert summary["versions"]["torch"].startswith("2.13.0")
    assert (run_dir / ".hydra" / "config.yaml").exists()
    assert (run_dir / "checkpoints" / "last.ckpt").exists()
    header = (run_dir / "metrics.csv").read_text().splitlines()[0].split(",")
    assert {"step", "eval/return_mean", "train/loss_policy", "train/approx_kl", "time/steps_per_s"} <= set(header)
    assert "env steps" in result.stderr + result.stdout  # the progress line


def test_default_run_lands_under_outputs(tmp_path):
    result = run_cli("total_env_steps=256", "eval.every=256", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (run,) = (tmp_path / "outputs" / "ppo_cartpole").iterdir()
    assert (run / "summary.json").exists()
