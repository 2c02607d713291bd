"""rlfw.train from Python: a run per call in one process, the summary and folder back, and a config
error raised with the command line's own line before anything is written."""

import json

import pytest

import rlfw
from rlfw.errors import ConfigError
from tests.helpers import run_in_process


def test_two_runs_in_one_process_return_their_summaries_and_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = rlfw.train(["algo=dqn", "total_env_steps=600", "replay.learning_starts=200", "eval.every=600"])
    second = rlfw.train(["algo=a2c", "seed=3", "total_env_steps=800", "eval.every=800"], run_dir="mine")
    assert first["run_dir"].parent == tmp_path / "outputs" / "dqn_cartpole" or first["run_dir"].parts[:2] == (
        "outputs",
        "dqn_cartpole",
    )
    assert json.loads((first["run_dir"] / "summary.json").read_text())["algo"] == "dqn"
    assert second["run_dir"] == tmp_path / "mine" or str(second["run_dir"]) == "mine"
    assert second["algo"] == "a2c" and second["seed"] == 3 and (tmp_path / "mine" / "summary.json").is_file()


@pytest.mark.parametrize("overrides", [["+total_env_step=3000"], ["algo=nope"], ["algo=dqn", "+replay.alpha=0.9"]])
def test_a_config_error_is_the_command_lines_line_and_writes_nothing(tmp_path, monkeypatch, overrides, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as err:
        rlfw.train(overrides)
    code, _, stderr = run_in_process(overrides, capsys)  # the command line's entry point
    assert code == 2 and stderr == f"rlfw: config error: {err.value}\n"
    assert list(tmp_path.iterdir()) == []
