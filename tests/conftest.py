import os
from pathlib import Path

import pytest
import torch

from tests.helpers import ROOT, build_wheel

os.environ.setdefault("WANDB_MODE", "offline")  # never let any test reach the network
torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture
def never_train(monkeypatch):
    """A command that passes every check would train: fail the test instead."""
    import rlfw.run.train

    def accepted(job, run_dir):
        raise AssertionError(f"accepted: {job.overrides}")

    monkeypatch.setattr(rlfw.run.train, "train", accepted)


@pytest.fixture(scope="session")
def rlfw_wheel(tmp_path_factory) -> Path:
    """rlfw built as a wheel from this checkout, once per test process."""
    return build_wheel(ROOT, tmp_path_factory.mktemp("dist"))
