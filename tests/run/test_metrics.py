"""Logged train metrics are means over the updates each row stands for."""

import csv
from pathlib import Path

import pytest
import torch

from rlfw.run.metrics import IntervalMean
from tests.helpers import run


def test_interval_mean_averages_since_the_last_pop():
    m = IntervalMean()
    for v in (1.0, 2.0, 6.0):
        m.add({"a": torch.tensor(v), "b": torch.tensor(2 * v)})
    assert m.pop() == {"a": 3.0, "b": 6.0}
    assert m.pop() == {}
    m.add({"a": torch.tensor(5.0)})
    assert m.pop() == {"a": 5.0}


def train_rows(run_dir: Path) -> list[dict]:
    with open(run_dir / "metrics.csv") as f:
        return [row for row in csv.DictReader(f) if row["train/loss"]]


def test_a_row_is_the_mean_of_the_updates_since_the_previous_row(tmp_path):
    args = ("algo=ppo", "total_env_steps=1536", "eval.every=1536")
    run(tmp_path / "every", *args, "log_every=1")
    run(tmp_path / "fours", *args, "log_every=4")
    single, grouped = train_rows(tmp_path / "every"), train_rows(tmp_path / "fours")
    assert len(single) == 60 and len(grouped) == 15  # 3 rollouts x 10 epochs x 2 minibatches
    for i, row in enumerate(grouped):
        for key in ("train/loss", "train/approx_kl", "train/clip_fraction", "train/loss_value"):
            expected = sum(float(r[key]) for r in single[4 * i : 4 * i + 4]) / 4
            assert float(row[key]) == pytest.approx(expected, rel=1e-5), key


def test_ppo_defaults_log_non_zero_kl_and_clip_fraction(tmp_path):
    run(tmp_path, "algo=ppo", "total_env_steps=5120", "eval.every=5120")  # 200 updates: two rows of 100
    rows = train_rows(tmp_path)
    assert [int(float(r["train/updates"])) for r in rows] == [100, 200]
    for row in rows:
        assert float(row["train/approx_kl"]) > 0 and float(row["train/clip_fraction"]) > 0
