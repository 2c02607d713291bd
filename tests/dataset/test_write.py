"""``python -m rlfw.dataset``: a finished run's replay, or episodes its checkpoint plays, becomes a Minari
dataset (the replay's episodes in the order played), with the references of the normalized score; bad
input ends in one line."""

import json

import numpy as np
import pytest
import torch

import rlfw
from rlfw.dataset.__main__ import main
from rlfw.dataset.episodes import from_replay
from rlfw.dataset.read import as_packed, read
from rlfw.dataset.write import run_episodes
from rlfw.errors import ConfigError
from rlfw.testing import SPEC

minari = pytest.importorskip("minari")


@pytest.fixture
def datasets(tmp_path, monkeypatch):
    root = tmp_path / "datasets"
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return root


def dataset_command(capsys, *args) -> tuple[int, str, str]:
    """``python -m rlfw.dataset *args``, in this process: its exit code, stdout and stderr."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_sac_run_s_replay_is_written_as_its_episodes_in_play_order_with_the_score_references(runs, datasets, capsys):
    code, out, err = dataset_command(capsys, runs["sac"], "--id", "rlfw/pendulum/test-v0")
    assert code == 0, err[-2000:]
    summary = json.loads((runs["sac"] / "summary.json").read_text())
    dataset = minari.load_dataset("rlfw/pendulum/test-v0")
    episodes = list(dataset.iterate_episodes())
    assert sum(len(e.actions) for e in episodes) == dataset.spec.total_steps == summary["env_steps"]
    assert all(len(e.observations) == len(e.actions) + 1 for e in episodes)
    assert [len(e.actions) for e in episodes[:-1]] == [200] * (len(episodes) - 1)  # Pendulum's time limit
    assert episodes[-1].truncations[-1] and not episodes[-1].terminations.any()  # the unfinished last one
    played, _, _ = run_episodes(runs["sac"])
    for written, mine in zip(episodes, played, strict=True):
        np.testing.assert_array_equal(written.observations, mine.observations)
        np.testing.assert_array_equal(written.actions, mine.actions)
    metadata = dataset.storage.metadata
    assert metadata["ref_max_score"] == summary["best_eval_return_mean"]
    assert -1700 < metadata["ref_min_score"] < -900  # a uniform random policy on Pendulum: about -1200
    assert dataset.recover_environment().spec.id == "Pendulum-v1"
    assert "rlfw/pendulum/test-v0" in out


def test_episodes_played_by_a_checkpoint_are_its_actions_with_the_score_references(runs, datasets, capsys):
    code, _, err = dataset_command(capsys, runs["sac"], "--play", "2", "--greedy", "--id", "rlfw/pendulum/best-v0")
    assert code == 0, err[-2000:]
    dataset = minari.load_dataset("rlfw/pendulum/best-v0")
    episodes = list(dataset.iterate_episodes())
    assert [len(e.actions) for e in episodes] == [200, 200] and all(e.truncations[-1] for e in episodes)
    agent = rlfw.load(runs["sac"])  # the best checkpoint, which played
    actions, _ = agent.predict(episodes[0].observations[:-1])
    np.testing.assert_allclose(episodes[0].actions, actions, rtol=1e-5, atol=1e-6)
    metadata = dataset.storage.metadata
    assert metadata["ref_max_score"] == json.loads((runs["sac"] / "summary.json").read_text())["best_eval_return_mean"]
    assert "2 episodes played greedily by" in metadata["algorithm_name"]
    # an on-policy run has no replay to write, but its checkpoint plays, with its training rule (sampling)
    code, _, err = dataset_command(capsys, runs["ppo"], "--play", "2", "--checkpoint", "last", "--id", "rlfw/cp/ppo-v0")
    assert code == 0, err[-2000:]
    assert minari.load_dataset("rlfw/cp/ppo-v0").spec.total_episodes == 2


def test_a_masked_env_s_replay_keeps_its_keys_and_is_read_back_packed_as_the_run_packed_it(datasets, tmp_path, capsys):
    run = tmp_path / "taxi"  # Taxi's open actions come in its info: the observation carries them as a part
    rlfw.train(
        ["algo=dqn", "env=taxi", "total_env_steps=1000", "replay.learning_starts=500", "eval.episodes=2"], run_dir=run
    )
    code, _, err = dataset_command(capsys, run, "--id", "rlfw/taxi/test-v0")
    assert code == 0, err[-2000:]
    episode = next(minari.load_dataset("rlfw/taxi/test-v0").iterate_episodes())
    assert sorted(episode.observations) == ["action_mask", "observation"]
    assert episode.observations["observation"].max() >= 6  # Taxi's state index (0..499), not a packed float
    data = read({"name": "minari", "id": "rlfw/taxi/test-v0"})
    spec = rlfw.load(run).spec
    packed = as_packed("rlfw/taxi/test-v0", data, spec)
    mine = np.concatenate([e.observations[:-1] for e in run_episodes(run)[0]])
    np.testing.assert_array_equal(packed.obs, mine)
    with pytest.raises(
        ConfigError, match="observations' keys are action_mask, observation; env Contract-v0's are none"
    ):
        as_packed("rlfw/taxi/test-v0", data, SPEC)  # an env of plain array observations


def test_a_ring_that_wrapped_leaves_out_each_column_s_first_episode_which_may_have_lost_its_start():
    # one env, a ring of 6 rows that wrapped: its steps played into rows 4, 5, 0, 1, 2, 3 (pos 4 is written next)
    steps = [10, 11, 12, 13, 14, 15]  # the play order's observations
    ends = [False, True, False, False, True, False]
    rows = [4, 5, 0, 1, 2, 3]  # row of each played step
    obs, nxt, term = torch.zeros(6, 1, 1), torch.zeros(6, 1, 1), torch.zeros(6, 1, dtype=torch.bool)
    for step, row, end in zip(steps, rows, ends, strict=True):
        obs[row, 0, 0], nxt[row, 0, 0], term[row, 0] = step, step + 0.5, end
    data = {"obs": obs, "next_obs": nxt, "action": torch.zeros(6, 1, 1), "reward": torch.ones(6, 1)}
    data |= {"terminated": term, "truncated": torch.zeros(6, 1, dtype=torch.bool)}
    episodes = from_replay({"store": {"pos": 4, "size": 6, "data": data}}, "test")
    assert [e.observations[:, 0].tolist() for e in episodes] == [[12, 12.5, 13.5, 14.5], [15, 15.5]]
    assert [e.truncations[-1] for e in episodes] == [False, True]
    never_wrapped = from_replay({"store": {"pos": 6, "size": 6, "data": {k: v[rows] for k, v in data.items()}}}, "t")
    assert [len(e) for e in never_wrapped] == [2, 3, 1]


def test_bad_input_ends_in_one_line_and_writes_nothing(runs, datasets, tmp_path, capsys):
    cases = [
        (tmp_path / "nowhere", "holds no summary.json"),
        (runs["ppo"], "holds no step-by-step transitions"),  # a rollout keeps no next observations
        (runs["catch"], "holds no step-by-step transitions"),  # stacked frames keep each frame once
    ]
    for run, message in cases:
        code, _, err = dataset_command(capsys, run)
        assert code == 2 and message in err, (run, err)
        assert len(err.strip().splitlines()) == 1, err
    for args, message in [
        ((runs["sac"], "--greedy"), "--checkpoint and --greedy choose how --play N plays"),
        ((runs["sac"], "--play", "0"), "--play 0: the episodes to play, >= 1"),
        (
            (runs["sac"], "--play", "1", "--checkpoint", str(tmp_path / "x.ckpt")),
            "neither a run folder nor a checkpoint",
        ),
    ]:
        code, _, err = dataset_command(capsys, *args)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (args, err)
    assert not datasets.exists() or not any(datasets.rglob("*.hdf5"))
    assert dataset_command(capsys, runs["sac"], "--id", "rlfw/x/y-v0")[0] == 0
    code, _, err = dataset_command(capsys, runs["sac"], "--id", "rlfw/x/y-v0")
    assert code == 2 and "exists already" in err
