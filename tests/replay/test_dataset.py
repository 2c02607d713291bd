"""Learning from a dataset (``data=minari``, ``replay=dataset``): a run counts updates, reads a local
Minari dataset whose spaces fit the env, evaluates in the env; bad input ends in one line before
anything is written."""

import json
import shutil

import numpy as np
import pytest

import rlfw
from rlfw.compare import compare
from rlfw.compare.plot import curves
from rlfw.compare.runs import find_runs
from rlfw.errors import ConfigError
from tests.offline_data import CARTPOLE, DISCRETE_ON_BOX, PENDULUM, SCRIPTED, SWING_UP

pytest.importorskip("minari")


def test_a_run_on_a_dataset_counts_updates_evaluates_in_the_env_and_checkpoints_by_updates(datasets, tmp_path):
    run = tmp_path / "run"
    overrides = ["algo=bc", "env=cartpole", "data=minari", f"data.id={CARTPOLE}", "total_updates=600"]
    summary = rlfw.train(
        [*overrides, "eval.every=300", "replay.updates=300", "network.encoder.hidden=[32]"], run_dir=run
    )
    assert summary["updates"] == 600 and summary["env_steps"] == 0
    assert [(e["updates"], e["env_steps"]) for e in summary["evals"]] == [(300, 0), (600, 0)]
    assert (run / "checkpoints" / "updates=000000000600.ckpt").is_file()
    written = json.loads((run / "summary.json").read_text())
    assert written["updates_per_second"] > 0
    scores = [100 * (e["return_mean"] - 20.0) / 480.0 for e in summary["evals"]]  # the dataset's references
    assert [e["normalized_score"] for e in summary["evals"]] == pytest.approx(scores)
    assert (written["normalized_score"], written["best_normalized_score"]) == pytest.approx((scores[-1], max(scores)))
    # rlfw.compare over runs that learned from data: the normalized score against updates
    grid, values = curves(find_runs([str(run)]), "updates", "normalized_score")
    assert grid.tolist() == [300, 600] and values[0].tolist() == pytest.approx(scores)
    text = compare([str(run)], None, "updates", tmp_path / "compare", "normalized_score")
    assert "final normalized_score" in text and (tmp_path / "compare" / "compare.png").is_file()


@pytest.mark.parametrize("algo", ["bc", "discrete_cql"])
def test_bc_and_discrete_cql_beat_the_behaviour_policy_of_a_noisy_cartpole_dataset(algo, datasets, tmp_path):
    import minari

    behaviour = float(np.mean([e.rewards.sum() for e in minari.load_dataset(SCRIPTED).iterate_episodes()]))
    assert 200 < behaviour < 300  # the balancer with 40% random actions (tests/offline_data.py)
    small = ["network.encoder.hidden=[64,64]", "replay.batch_size=64", "replay.updates=500", "eval.every=500"]
    data = [f"algo={algo}", "env=cartpole", "data=minari", f"data.id={SCRIPTED}", "total_updates=3000"]
    summary = rlfw.train([*data, *small], run_dir=tmp_path / "run")
    assert summary["eval_return_mean"] >= 475 > behaviour, summary["evals"]  # solved: CartPole's bar


SMALL = ("network.encoder.hidden=[64,64]", "network.head.critic_hidden=[64,64]")
FAST = ("optim.lr=1e-3", "target.tau=0.01")


@pytest.mark.parametrize(
    "algo, updates, sizes",
    [
        ("td3_bc", 4000, SMALL),
        # IQL and CQL with their own 256x256 networks and a short budget's faster learning (lr 1e-3, target tau
        # 0.01): seeds 0-2 passed by far (IQL -199, -174, -173 after 2k updates; CQL -217, -191, -195 after 3k,
        # 46 s a run). IQL with 64x64 networks failed seed 2 after 6k updates; CQL failed seed 1 after 2k
        # updates, and its seed 1 ended near the behaviour (-418, -429) with batches of 128 or 2 actions a kind.
        ("iql", 2000, (*FAST, "loss.beta=10")),
        # a conservative weight of 1, not d3rlpy's 5 (-401 after 10k updates), and 4 sampled actions a kind
        ("cql", 3000, (*FAST, "optim.groups.actor.lr=1e-3", "loss.alpha_cql=1", "loss.n_actions=4")),
        pytest.param("iql", 20_000, SMALL, marks=pytest.mark.seeds),
        pytest.param("cql", 10_000, ("loss.alpha_cql=1",), marks=pytest.mark.seeds),
    ],
)
def test_offline_algos_reach_the_behaviour_policy_of_a_noisy_pendulum_dataset(algo, updates, sizes, datasets, tmp_path):
    import minari

    behaviour = float(np.mean([e.rewards.sum() for e in minari.load_dataset(SWING_UP).iterate_episodes()]))
    assert -600 < behaviour < -300  # the swing-up controller with 50% random torque (tests/offline_data.py)
    data = [f"algo={algo}", "env=pendulum", "data=minari", f"data.id={SWING_UP}", f"total_updates={updates}"]
    run = [*data, *sizes, "replay.updates=1000", f"eval.every={updates}", "stop_when_solved=false"]
    summary = rlfw.train(run, run_dir=tmp_path / "run")
    assert summary["eval_return_mean"] > behaviour, summary["evals"]


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["algo=td3_bc", "env=pendulum", "data=minari", "data.id=nope/x-v0"], "no such local Minari dataset"),
        (
            ["algo=td3_bc", "env=pendulum", "data=minari"],
            f"data.id: which local Minari dataset to learn from; there: {CARTPOLE}",
        ),
        (
            ["algo=td3_bc", "env=pendulum", "data=minari", f"data.id={CARTPOLE}"],
            f"data.id={CARTPOLE}: its episodes were played in CartPole-v1, and this run's env is Pendulum-v1; give"
            " env=cartpole or env=gym env.id=CartPole-v1",
        ),
        (["algo=td3_bc", "env=pendulum", "data=minari", f"data.id={DISCRETE_ON_BOX}"], "discrete data cannot train"),
        (["algo=bc", "env=cartpole", "data=minari", f"data.id={PENDULUM}"], "give env=pendulum or env=gym env.id"),
        (["algo=td3_bc", "data=minari", f"data.id={PENDULUM}"], "this run's env is CartPole-v1; give env=pendulum"),
        (["algo=bc", "env=mpe_spread", "data=minari", f"data.id={DISCRETE_ON_BOX}"], "a dataset holds one row a step"),
        (["algo=td3_bc", "env=pendulum"], "replay=dataset learns from a dataset: give one, data=minari data.id=<id>"),
        (["algo=sac", "env=pendulum", "data=minari", f"data.id={PENDULUM}"], "algo=bc, cql, discrete_cql, iql, td3_bc"),
        (
            ["algo=sac", "env=pendulum", "total_updates=100"],
            "total_updates=100: counts a run that learns only from data",
        ),
    ],
)
def test_bad_input_is_refused_in_one_line_before_anything_is_written(
    overrides, message, datasets, tmp_path, never_train
):
    with pytest.raises(ConfigError) as refused:
        rlfw.train(overrides, run_dir=tmp_path / "run")
    assert message in str(refused.value) and len(str(refused.value).splitlines()) == 1, refused.value
    assert not (tmp_path / "run").exists()


def test_a_damaged_dataset_file_is_refused_in_one_line(datasets, tmp_path, monkeypatch, never_train):
    copy = tmp_path / "copy"
    shutil.copytree(datasets, copy)
    (data_file,) = (copy / "test" / "cartpole" / "random-v0" / "data").glob("*.hdf5")
    data_file.write_bytes(data_file.read_bytes()[:100])
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(copy))
    with pytest.raises(ConfigError, match=f"data.id={CARTPOLE}: the dataset cannot be read"):
        rlfw.train(["algo=bc", "data=minari", f"data.id={CARTPOLE}"], run_dir=tmp_path / "run")
