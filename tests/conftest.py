import os

import pytest
import torch

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
