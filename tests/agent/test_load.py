"""rlfw.load: the agent acts as the run's network did, on one observation or a batch, numpy or torch;
bad paths, missing plugins and malformed observations are refused by name."""

import json

import numpy as np
import pytest
import torch

import rlfw
from rlfw.errors import ConfigError
from rlfw.network.normalize import normalizers
from rlfw.run.evaluate import evaluate


@pytest.mark.parametrize("name", ["ppo", "rainbow", "catch"])  # discrete actions
def test_predict_takes_one_observation_or_a_batch_numpy_or_torch(runs, name):
    agent = rlfw.load(runs[name])
    envs = agent.make_env(5)
    obs, _ = envs.reset(seed=3)
    batch, state = agent.predict(obs)
    assert state is None and isinstance(batch, np.ndarray) and batch.shape == (5,) and batch.dtype == np.int64
    one, _ = agent.predict(obs[2])
    assert one.shape == () and int(one) == batch[2]
    assert np.array_equal(agent.predict(torch.from_numpy(obs))[0], batch)
    sampled, _ = agent.predict(
        obs, deterministic=False
    )  # the training rule: epsilon-greedy's last epsilon, or a sample
    assert sampled.shape == (5,) and bool(((sampled >= 0) & (sampled < agent.spec.num_actions)).all())


@pytest.mark.parametrize("name", ["rainbow", "catch"])
def test_the_loaded_agent_scores_what_the_run_scored_with_those_weights(runs, name):
    summary = json.loads((runs[name] / "summary.json").read_text())
    agent = rlfw.load(runs[name], which="last")  # saved after the final evaluation
    assert agent.env_steps == summary["evals"][-1]["env_steps"]
    returns, _ = evaluate(agent.make_env(agent.config["eval"]["episodes"]), agent.policy(), agent.eval_seed())
    assert float(returns.mean()) == summary["eval_return_mean"]


def test_a_gaussian_agent_acts_within_the_bounds_with_the_runs_observation_statistics(runs):
    agent = rlfw.load(runs["pendulum"], which="last")
    (norm,) = normalizers(agent.net)
    assert float(norm.count) > 4000  # every observation the run acted on, carried by the checkpoint
    envs = agent.make_env(6)
    obs, _ = envs.reset(seed=1)
    action, _ = agent.predict(obs)
    assert action.shape == (6, 1) and action.dtype == np.float32 and bool((np.abs(action) <= 2).all())
    sampled, _ = agent.predict(np.repeat(obs[:1], 500, 0), deterministic=False)
    assert len(np.unique(sampled)) > 100 and bool((np.abs(sampled) <= 2).all())  # samples, clipped for the env


def test_a_checkpoint_file_loads_on_its_own(runs, tmp_path):
    lone = tmp_path / "elsewhere.ckpt"
    lone.write_bytes((runs["ppo"] / "checkpoints" / "best.ckpt").read_bytes())
    agent = rlfw.load(lone)
    assert agent.checkpoint == lone and agent.spec.id == "CartPole-v1"


def test_bad_paths_are_named(runs, tmp_path):
    with pytest.raises(ConfigError, match="neither a run folder nor a checkpoint file"):
        rlfw.load(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"has no checkpoints/best.ckpt; it holds no checkpoint"):
        rlfw.load(tmp_path / "empty")
    with pytest.raises(ConfigError, match="which='worst': one of best, last"):
        rlfw.load(runs["ppo"], which="worst")
    garbled = tmp_path / "garbled.ckpt"
    garbled.write_bytes(b"not a checkpoint")
    with pytest.raises(ConfigError, match=r"garbled.ckpt is not a readable checkpoint"):
        rlfw.load(garbled)


def test_an_option_from_a_plugin_that_is_not_installed_names_the_plugin(runs, tmp_path):
    state = torch.load(runs["rainbow"] / "checkpoints" / "best.ckpt", weights_only=True)
    state["config"]["network"]["head"]["name"] = "quantile_q"
    state["options_from"] = {"network.head": "rlfw-qr-dqn 0.0.1"}
    torch.save(state, tmp_path / "qr.ckpt")
    with pytest.raises(
        ConfigError, match=r"network.head=quantile_q from the plugin rlfw-qr-dqn 0.0.1, which is not installed"
    ):
        rlfw.load(tmp_path / "qr.ckpt")


def test_observations_of_the_wrong_shape_or_dtype_are_refused(runs):
    cartpole, catch = rlfw.load(runs["ppo"]), rlfw.load(runs["catch"])
    with pytest.raises(ValueError, match=r"shape \(3,\) do not fit this agent's \(4,\)"):
        cartpole.predict(np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"dtype torch.bool; this agent reads real numbers"):
        cartpole.predict(np.zeros(4, bool))
    with pytest.raises(ValueError, match=r"dtype torch.float32; this agent reads uint8 pixels"):
        catch.predict(np.zeros(catch.spec.obs_shape, np.float32))
    assert cartpole.predict(np.zeros(4, np.float64))[0].shape == ()  # any real numbers are cast
