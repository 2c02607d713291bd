"""``init_from=<ckpt>`` with ``online=finetune``: a run that learned from data goes on online from its
checkpoint's networks; a file that is missing or does not fit ends in one line before anything is written."""

import pytest

import rlfw
from rlfw.errors import ConfigError
from tests.offline_data import SCRIPTED

pytest.importorskip("minari")

SMALL = ["env=cartpole", "network.encoder.hidden=[64,64]", "replay.batch_size=64"]
OFFLINE = ["algo=discrete_cql", "data=minari", f"data.id={SCRIPTED}", *SMALL]


@pytest.fixture(scope="module")
def offline_checkpoint(dataset_root, tmp_path_factory):
    """A discrete CQL agent that solved CartPole from the scripted dataset, and its last checkpoint."""
    run = tmp_path_factory.mktemp("offline") / "run"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINARI_DATASETS_PATH", str(dataset_root))
        summary = rlfw.train([*OFFLINE, "total_updates=3000", "replay.updates=500", "eval.every=500"], run_dir=run)
    assert summary["solved"], summary["evals"]
    return run / "checkpoints" / "last.ckpt"


def test_an_offline_agent_goes_on_online_from_its_checkpoint(offline_checkpoint, datasets, tmp_path):
    # no update before the first evaluation (600 env steps stored first): it plays the offline agent's weights
    online = [*OFFLINE, "online=finetune", "total_env_steps=1000", "eval.every=500", "replay.learning_starts=600"]
    online += ["stop_when_solved=false"]
    summary = rlfw.train([*online, f"init_from={offline_checkpoint}"], run_dir=tmp_path / "on")
    assert (summary["env_steps"], summary["evals"][0]["env_steps"]) == (1000, 500)
    assert summary["evals"][0]["return_mean"] >= 475, summary["evals"]  # where the offline run ended: solved
    fresh = rlfw.train(online, run_dir=tmp_path / "fresh")  # the same run from new weights
    assert fresh["evals"][0]["return_mean"] < 200, fresh["evals"]


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["init_from=/nowhere/last.ckpt"], "init_from='/nowhere/last.ckpt': no such file"),
        (["network.encoder.hidden=[32]"], "its networks (loss=discrete_cql) do not fit this run's: net.encoder"),
        (["optim=rmsprop"], "its optimizer is optim=adam, this run's optim=rmsprop"),
        (["replay=uniform"], "data=minari: replay=uniform learns from the env's steps, not a dataset"),
        (["total_updates=100"], "total_updates=100: counts a run that learns only from data"),
    ],
)
def test_a_checkpoint_that_does_not_fit_is_refused_in_one_line(
    overrides, message, offline_checkpoint, datasets, tmp_path, never_train
):
    online = [*OFFLINE, "online=finetune", f"init_from={offline_checkpoint}", *overrides]
    with pytest.raises(ConfigError) as refused:
        rlfw.train(online, run_dir=tmp_path / "run")
    assert message in str(refused.value) and len(str(refused.value).splitlines()) == 1, refused.value
    assert not (tmp_path / "run").exists()
