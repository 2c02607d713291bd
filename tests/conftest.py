import os
from pathlib import Path

import pytest
import torch

from tests.helpers import ROOT, build_wheel, made_once

os.environ.setdefault("WANDB_MODE", "offline")  # never let any test reach the network
torch.set_num_threads(1)


# Long tests first, so that neither xdist process is left running one alone at the end: the learning
# runs, then the modules whose tests start other processes (rlfw's command line, ddp ranks, venvs).
FIRST = (
    "test_learning.py",
    "test_ranks.py",
    "test_sweep_resume.py",
    "test_sweep.py",  # tests/pbt: a population's searches
    "test_launchers.py",
    "test_example_plugins.py",
    "test_plugins.py",
    "test_resume.py",
    "test_readme.py",
    "test_wandb.py",
)


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))  # stable: the rest keep their order


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture
def never_train(monkeypatch):
    """A command that passes every check would train: fail the test instead. Both entry points'
    references are patched (rlfw.train's is bound when rlfw.run.api is imported, so it is imported
    first: a first import under the patch would keep the stand-in for the rest of the session)."""
    import rlfw.run.api
    import rlfw.run.train

    def accepted(job, run_dir):
        raise AssertionError(f"accepted: {job.overrides}")

    monkeypatch.setattr(rlfw.run.train, "train", accepted)
    monkeypatch.setattr(rlfw.run.api, "train_job", accepted)


@pytest.fixture(scope="session")
def rlfw_wheel(tmp_path_factory) -> Path:
    """rlfw built as a wheel from this checkout, once per test session."""
    (wheel,) = made_once(tmp_path_factory, "rlfw_wheel", lambda out: build_wheel(ROOT, out)).glob("*.whl")
    return wheel


@pytest.fixture(scope="session")
def dataset_root(tmp_path_factory) -> Path:
    """Small Minari datasets (``tests.offline_data``), written once per test session."""
    from tests.offline_data import write_datasets

    def make(root: Path) -> None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("MINARI_DATASETS_PATH", str(root))
            write_datasets()

    return made_once(tmp_path_factory, "minari_datasets", make)


@pytest.fixture
def datasets(dataset_root, monkeypatch) -> Path:
    """MINARI_DATASETS_PATH, for this process and the ones it starts, where the test datasets are."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(dataset_root))
    return dataset_root
