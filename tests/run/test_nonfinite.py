"""Never train on NaN: a non-finite loss stops the run in one line after a debug checkpoint, or is skipped."""

from __future__ import annotations

import csv
import re

import pytest
import torch

from rlfw.errors import NonFiniteError
from rlfw.run import module
from rlfw.run.update import update
from tests.helpers import run, run_in_process

# An absurd learning rate: Adam's first step moves every weight by about 1e30, the next Q values overflow.
ARGS = (
    "algo=dqn",
    "optim.lr=1e30",
    "total_env_steps=3000",
    "replay.learning_starts=300",
    "eval.every=3000",
    "threads=1",
)


def test_a_non_finite_loss_stops_the_run_naming_update_env_step_and_term(tmp_path, capsys):
    code, _, stderr = run_in_process([*ARGS, f"hydra.run.dir={tmp_path}"], capsys)  # the command line's entry point
    assert code == 1
    line = stderr.strip().splitlines()[-1]
    assert "Traceback" not in stderr
    assert line.startswith("rlfw: ") and "is not finite at update" in line and "env step" in line, line
    assert "loss_td" in line or "gradient of" in line or "parameter" in line, line
    debug = tmp_path / "checkpoints" / "nonfinite.ckpt"
    assert str(debug) in line and torch.load(debug, weights_only=True)["run"]["updates"] >= 0


def test_on_nonfinite_skip_skips_those_updates_and_counts_them(tmp_path):
    run(tmp_path, *ARGS, "on_nonfinite=skip", "log_every=50")
    with open(tmp_path / "metrics.csv") as f:
        skips = [float(r["train/nonfinite_skips"]) for r in csv.DictReader(f) if r.get("train/nonfinite_skips")]
    assert skips and skips[-1] > 0
    state = torch.load(tmp_path / "checkpoints" / "last.ckpt", weights_only=True)
    assert all(torch.isfinite(v).all() for v in state["state_dict"].values())  # huge, after the first step, but finite
    assert state["run"]["nonfinite_skips"] == skips[-1]


@pytest.mark.parametrize(
    "uses, at",
    [(("eval.every=1000", "checkpoint.every=5000"), 1000), (("eval.every=5000", "checkpoint.every=600"), 600)],
)
def test_parameters_gone_non_finite_with_finite_gradients_stop_the_run_before_a_checkpoint_or_evaluation_uses_them(
    tmp_path, monkeypatch, uses, at
):
    def poisoned(learner, batch, number):  # after update 10, a parameter no loss reaches (no gradient shows it) is NaN
        result = update(learner, batch, number)
        if number == 10 and result.stepped:
            learner.net.spare = torch.nn.Parameter(torch.tensor([float("nan")]))
            learner.target_net.spare = torch.nn.Parameter(torch.zeros(1))  # the target rule pairs the nets' parameters
        return result

    monkeypatch.setattr(module, "update", poisoned)
    with pytest.raises(NonFiniteError, match=r"parameter spare is not finite after update") as err:
        run(tmp_path, "algo=dqn", "total_env_steps=3000", "replay.learning_starts=200", "threads=1", *uses)
    # caught at the first safe point (one every 256 env steps, replay.collect_steps) where the state is used
    env_step = int(re.search(r"\(env step ([\d,]+)\)", str(err.value)).group(1).replace(",", ""))
    assert at <= env_step < at + 256, str(err.value)
    assert not list((tmp_path / "checkpoints").glob("env_steps=*.ckpt"))  # the NaN state went only to nonfinite.ckpt
    assert (tmp_path / "checkpoints" / "nonfinite.ckpt").is_file()
