"""python -m rlfw.play reproduces the run's own evaluation; python -m rlfw.export writes files that
torch.jit and onnxruntime run to the agent's own actions."""

import json

import numpy as np
import onnxruntime
import pytest
import torch

import rlfw
from rlfw.agent.export import load_file
from rlfw.export import main as export_main
from rlfw.network.precision import fp32
from rlfw.play import main as play_main


def test_play_prints_the_runs_own_evaluation_of_the_checkpoint(runs, capsys):
    summary = json.loads((runs["rainbow"] / "summary.json").read_text())
    play_main([str(runs["rainbow"]), "which=last"])
    out = capsys.readouterr().out
    final = summary["evals"][-1]
    assert f"return: mean {final['return_mean']:.1f}, std {final['return_std']:.1f}, IQM" in out
    assert f"the run's own evaluation of these weights: {final['return_mean']:.1f} +- {final['return_std']:.1f}" in out
    assert "length: mean" in out


def test_play_episodes_seed_sampling_and_a_video(runs, capsys):
    play_main([str(runs["catch"]), "episodes=3", "seed=7", "deterministic=false", "video=true"])
    out = capsys.readouterr().out
    assert "3 episodes, as in training (not greedy)" in out
    assert (runs["catch"] / "play.mp4").stat().st_size > 0


def test_play_in_a_window_without_a_display_is_refused_in_one_line(runs, capsys, monkeypatch):
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(SystemExit) as stop:
        play_main([str(runs["ppo"]), "render=human"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and len(err.splitlines()) == 1
    assert err.startswith("rlfw.play: render='human': no display here") and "video=true" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["episodes=ten"], "episodes='ten': expected int or null"),
        (["episode=3"], "episode: unknown key (did you mean episodes?)"),
        (["episodes=0"], "episodes=0: must be >= 1"),
        (["render=human"], "render='human': Catch renders rgb_array frames only"),
    ],
)
def test_play_refuses_bad_arguments_in_one_line(runs, capsys, args, message):
    with pytest.raises(SystemExit) as stop:
        play_main([str(runs["catch"]), *args])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("rlfw.play: ") and message in err and len(err.splitlines()) == 1


def observations(agent: rlfw.agent.load.Agent, count: int = 1000) -> np.ndarray:
    """``count`` observations the env really gives, from episodes played with random actions."""
    envs = agent.make_env(8)
    obs, _ = envs.reset(seed=0)
    envs.action_space.seed(0)
    seen = []
    while sum(len(o) for o in seen) < count:
        seen.append(obs)
        obs, *_ = envs.step(envs.action_space.sample())
    return np.concatenate(seen)[:count]


@pytest.mark.parametrize("name", ["ppo", "rainbow", "catch", "pendulum", "sac"])
def test_exported_files_pick_the_agents_actions(runs, name, tmp_path, capsys):
    agent = rlfw.load(runs[name])
    obs = observations(agent)
    # The files compute in fp32. An agent whose run had bf16 convolutions (precision=bf16; auto on Atari-sized
    # frames) keeps them, and near-ties can go the other way (1-8 of 1,000 Catch observations): compare in fp32.
    with fp32(agent.net):
        want = agent.predict(obs)[0]
    export_main([str(runs[name]), "format=torchscript", f"out={tmp_path}/policy.pt"])
    export_main([str(runs[name]), "format=onnx", f"out={tmp_path}/policy.onnx"])
    scripted = torch.jit.load(str(tmp_path / "policy.pt"))(torch.from_numpy(obs)).numpy()
    from_onnx = onnxruntime.InferenceSession(str(tmp_path / "policy.onnx")).run(["action"], {"obs": obs})[0]
    if want.dtype.kind == "f":  # a Gaussian's mean: the same up to float rounding in another runtime
        np.testing.assert_allclose(scripted, want, atol=1e-6)
        np.testing.assert_allclose(from_onnx, want, atol=1e-5)
    else:
        assert np.array_equal(scripted, want) and np.array_equal(from_onnx, want)
    spec = json.loads((tmp_path / "policy.onnx.json").read_text())
    assert spec["input"] == {"name": "obs", "shape": ["batch", *agent.spec.obs_shape], "dtype": str(obs.dtype)}
    assert spec["action_space"]["type"] == type(agent.spec.action_space).__name__
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "policy.onnx",
        "policy.onnx.json",
        "policy.pt",
        "policy.pt.json",
    ]


def test_export_refuses_an_unknown_format_and_a_missing_exporter(runs, capsys, monkeypatch):
    with pytest.raises(SystemExit):
        export_main([str(runs["ppo"]), "format=tflite"])
    assert capsys.readouterr().err == "rlfw.export: format='tflite': not an export format; valid: torchscript, onnx\n"
    real = __import__("importlib.util").util.find_spec
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a))
    with pytest.raises(SystemExit):
        export_main([str(runs["ppo"]), "format=onnx"])
    assert capsys.readouterr().err == "rlfw.export: format=onnx needs onnxruntime: pip install 'rlfw[export]'\n"


def test_play_carries_a_recurrent_policys_state_as_the_runs_evaluation_did(runs, capsys):
    summary = json.loads((runs["ppo_lstm"] / "summary.json").read_text())
    play_main([str(runs["ppo_lstm"]), "which=last"])
    out, final = capsys.readouterr().out, summary["evals"][-1]
    assert f"return: mean {final['return_mean']:.1f}, std {final['return_std']:.1f}, IQM" in out  # the same episodes
    assert f"the run's own evaluation of these weights: {final['return_mean']:.1f}" in out


@pytest.mark.parametrize("fmt", ["torchscript", "onnx"])
def test_exported_recurrent_policy_carries_its_state_over_whole_episodes(runs, fmt, tmp_path):
    agent = rlfw.load(runs["ppo_lstm"])
    export_main([str(runs["ppo_lstm"]), f"format={fmt}", f"out={tmp_path}/policy"])
    run = load_file(fmt, tmp_path / "policy")
    envs = agent.make_env(4)
    obs, _ = envs.reset(seed=3)
    state, file_state = None, agent.net.initial_state(4).numpy()
    starts, running, steps = np.ones(4, dtype=bool), np.ones(4, dtype=bool), 0
    while running.any():  # until every env has played one whole episode
        want, state = agent.predict(obs, state, starts)
        got, file_state = run(obs, file_state, starts)
        assert np.array_equal(got, want), f"step {steps}: the file picks {got}, the agent {want}"
        np.testing.assert_allclose(file_state, state, atol=1e-5)
        obs, _, terminated, truncated, _ = envs.step(want)
        starts = terminated | truncated
        running &= ~starts
        steps += 1
    assert steps > 20  # whole episodes, not one step
    memory = json.loads((tmp_path / "policy.json").read_text())["memory"]
    assert [i["name"] for i in memory["inputs"]] == ["state", "episode_start"]
    assert memory["output"]["shape"] == ["batch", *agent.net.initial_state(1).shape[1:]]


def test_predict_carries_a_recurrent_state_and_refuses_one_of_another_shape(runs):
    agent = rlfw.load(runs["ppo_lstm"])
    obs = agent.make_env(2).reset(seed=0)[0]
    action, state = agent.predict(obs)  # no state: an episode's first step
    assert state.shape == tuple(agent.net.initial_state(2).shape)
    one_action, one_state = agent.predict(obs[0], state[0])
    assert one_state.shape == state.shape[1:] and np.ndim(one_action) == 0
    again, _ = agent.predict(obs, state, episode_start=np.ones(2, dtype=bool))  # a start forgets the state
    assert np.array_equal(again, action)
    with pytest.raises(ValueError, match=r"predict: a state of shape \(2, 3\); this agent's is"):
        agent.predict(obs, np.zeros((2, 3)))
