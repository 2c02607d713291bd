import os

import pytest
import torch

os.environ.setdefault("WANDB_MODE", "offline")  # never let any test reach the network
torch.set_num_threads(1)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
