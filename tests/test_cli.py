"""``python -m rlfw ...`` as a user runs it: bad input, Hydra's flags, a real short run."""

import json
from pathlib import Path

import pytest
import torch

import rlfw
from tests.helpers import check_refused, run_cli, run_in_process

BAD = [
    (
        ["algo=nope"],
        "algo=nope: no such option; valid: a2c, a2c_lstm, bc, c51, cql, ddpg, discrete_cql, double_dqn, dqn, iql, mappo, ppo,"
        " ppo_lstm, rainbow, sac, td3, td3_bc",
    ),
    (
        ["env=nope"],
        "env=nope: no such option (did you mean hopper?); valid: acrobot, ant, atari, breakout, cartpole, cartpole_novel, catch, connect_four, gym, halfcheetah, hopper,"
        " humanoid, inverted_pendulum, minatar, minigrid, mpe_spread, mujoco, pendulum, pettingzoo, pong, popgym, popgym_cartpole,"
        " popgym_repeat_first, popgym_repeat_previous, taxi,"
        " walker2d",
    ),
    (["env=popgym", "env.task=RepeatPrevious"], "env.task='RepeatPrevious': not a POPGym task (did you mean"),
    (
        ["loss.name=bogus"],
        "loss.name='bogus': not a registered loss; valid: a2c, bc, c51, cql, discrete_cql, double_dqn, dqn, iql, ppo",
    ),
    (["env=gym", "env.id=NoSuch-v0"], "env.id='NoSuch-v0': not a registered gymnasium id"),
    (["env=gym", "env.id=CartPole-v9"], "(did you mean CartPole-v1?)"),
    (["replay.num_steps=abc"], "replay.num_steps='abc': expected int"),
    (["num_envs=-2"], "num_envs=-2: envs stepped together, 1 to 1024"),
    (["algo=dqn", "replay.batch_size=200000"], "replay.batch_size=200000: must not exceed replay.capacity=100000"),
    (["algo=dqn", "env=gym", "env.id=Pendulum-v1"], "network/head=q acts in Discrete action spaces, and Pendulum-v1"),
    (["algo=mappo", "env=cartpole"], "network.head.critic_input='state': reads a global state, and CartPole-v1's"),
    (["algo=vdn", "env=cartpole"], "loss='vdn': sums the Q values of an env's agents, and CartPole-v1 has one agent"),
    (
        ["algo=vdn", "env=connect_four"],
        "loss=vdn: classic/connect_four-v3 is a turn-based game: its seats take turns, each acting only on its own,"
        " and this loss learns from every row; losses that leave out the rows that do not act: a2c, ppo",
    ),
    (["algo=dqn", "env=connect_four"], "loss=dqn: classic/connect_four-v3 is a turn-based game: its seats take turns"),
    (["algo=mappo", "env=connect_four"], "env.state=true: classic/connect_four-v3 has no global state()"),
    (
        ["algo=dqn", "env=pettingzoo", "env.id=tests.env.agents:Counters", "env.agents_leave=true"],
        "loss=dqn: env.agents_leave=true: the agents that leave tests.env.agents:Counters early act no more until its"
        " episode ends, and this loss learns from every row; losses that leave out the rows that do not act: a2c, ppo"
        " (algo=ppo, algo=a2c, algo=mappo)",
    ),
    (
        ["algo=ppo_lstm", "env=pettingzoo", "env.id=tests.env.agents:Counters", "env.agents_leave=true"],
        "env.agents_leave=true: a recurrent head's memory would carry a left agent's steps into its next episode",
    ),
    (["league.past=0.5"], "league.past=0.5: past versions take a seat in a turn-based game's training games"),
    (["league.past=2"], "league.past=2: the share of training games against a past version, 0 to 1"),
    (["algo=ppo_lstm", "league.past=0.5"], "league.past=0.5: past versions play one step at a time without memory"),
    (
        ["algo=dqn", "env=halfcheetah"],
        "the algos that act in a Box space: a2c, a2c_lstm, ddpg, mappo, ppo, ppo_lstm, sac, td3",
    ),
    (["algo=sac"], "network/head=squashed_gaussian acts in Box action spaces, and CartPole-v1 has Discrete(2)"),
    (
        ["algo=sac", "env=pendulum", "target.parts=[actor,critics]"],
        "target.parts=['critics']: not parts of this network",
    ),
    (
        ["algo=td3", "env=pendulum", "explore=sample"],
        "explore=sample: needs a policy, an action distribution from the head; network/head=deterministic_actor",
    ),
    (["algo=ppo", "env=pendulum", "loss=sac"], "loss=sac: needs network outputs log_std, mean"),
    (
        ["algo=dqn", "+replay.normalize_reward=true"],
        "replay=uniform does not take normalize_reward (replay=rollout does)",
    ),
    (["env=catch", "network.normalize_obs=true"], "network.normalize_obs=True: Catch gives uint8 pixels"),
    (["loss=dqn", "env=pendulum"], "loss=dqn: needs network outputs q; network/head=actor_critic gives value"),
    (
        ["algo=dqn", "explore=sample"],
        "explore=sample: needs a policy, an action distribution from the head; network/head=q gives q",
    ),
    # C51 and noisy layers (issue 52)
    (["algo=c51", "network.head.num_atoms=1"], "network.head.num_atoms=1: atoms of the return's support, >= 2"),
    (["algo=c51", "network.head.v_min=100"], "network.head.v_min=100: the support's lowest atom, below v_max=100.0"),
    (["algo=dqn", "loss=c51"], "loss=c51: needs network outputs log_pmf; network/head=q gives q"),
    (
        ["algo=dqn", "network/head=categorical_q"],
        "loss=dqn: network/head=categorical_q is trained through its outputs log_pmf, which this loss does not"
        " read (losses that do: c51)",
    ),
    (["algo=dqn", "network.head.noisy=true"], "explore=epsilon_greedy: network.head.noisy=true explores through"),
    (["algo=rainbow", "network.head.sigma0=0"], "network.head.sigma0=0: the noise's initial scale, > 0"),
    (["algo=ppo", "+network.head.noisy=true"], "network.head.noisy"),
    (["algo=dqn", "target=none"], "target=none: loss=dqn needs a target network"),
    # a recurrent head (issue 51)
    (
        ["algo=dqn", "network/head=recurrent_actor_critic"],
        "network/head=recurrent_actor_critic: a recurrent head learns from whole episodes in time order;"
        " replay=uniform samples steps out of order (replays that keep them: rollout)",
    ),
    (["algo=sac", "env=pendulum", "network/head=recurrent_actor_critic"], "replay=uniform samples steps out of order"),
    (
        ["algo=ppo_lstm", "replay.minibatches=3"],
        "replay.minibatches=3: a recurrent head trains on whole env columns, so the minibatches must divide num_envs=8",
    ),
    (["algo=ppo_lstm", "network.head.cell=transformer"], "network.head.cell='transformer': one of lstm, gru"),
    (["loss=dqn"], "loss=dqn: needs network outputs q; network/head=actor_critic gives value"),
    (["+replay.bogus=1"], "replay.bogus: unknown key for replay=rollout"),
    (["+total_env_step=3000"], "total_env_step: unknown key (did you mean total_env_steps?)"),
    (["total_env_step=3000"], "total_env_step: no such key in the config (did you mean total_env_steps?)"),
    (["algo=dqn", "lr=1e-3"], "lr: no such key in the config (did you mean optim.lr?)"),  # an option's key
    (["env=catch", "network.encoder.precision=fp32"], "network.encoder.precision: renamed network.precision (auto"),
    (
        ["algo=dqn", "+replay.alpha=0.9"],
        "replay.alpha=0.9: replay=uniform does not take alpha (replay=prioritized does)",
    ),
    (["+optim.groups.trunk.lr=0.1"], "optim.groups.trunk: not a part of this network; parts: actor, critic"),
    (["+optim.groups.actor.learning_rate=0.1"], "optim.groups.actor.learning_rate: unknown key for optim.groups.actor"),
    (["+trainer.max_steps=10"], "trainer.max_steps: unknown key for trainer"),
    (["trainer.devices=2"], "trainer.devices=2: one process per device needs trainer.strategy=ddp"),
    (["-m", "trainer.strategy=ddp", "trainer.devices=2", "seed=0,1"], "trainer.strategy=ddp: not in a multirun (-m)"),
    pytest.param(
        ["trainer.accelerator=gpu"],
        "trainer.accelerator='gpu': no GPU is visible to torch here",
        marks=pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU"),
    ),
    (["trainer.accelerator=tpu"], "trainer.accelerator='tpu': expected one of cpu, gpu, cuda, mps, auto"),
    (["seed=[1"], "cannot parse the override 'seed=[1'"),
    (["seed=${nope}"], "seed: Interpolation key 'nope' not found"),
    (["replay=null"], "replay=null: a config group needs an option"),
    (["network=5"], "network=5: a config group needs an option"),
    (["eval=[1]"], "Error merging override eval=[1] Cannot merge DictConfig with ListConfig"),
    (["algo=ppo", "tuned=dqn_cartpole"], "tuned=dqn_cartpole: tuned values are picked by algo and env"),
    (["algo=dqn", "ablate=no_noisy"], "ablate=no_noisy: the ablate options set back one of Rainbow's parts"),
    (
        ["env=gym", "env.id=RlfwTest/MaskedIdentity-v0", "env.imports=[tests.env.masked]", "env.mask=info"],
        "env.mask=info: its info has no 'action_mask' key; this env follows method",
    ),
    (["env.mask=obs"], "env.mask=obs: its observation has no 'action_mask' key; this env follows none of them"),
    (["env=pendulum", "env.mask=often"], "env.mask='often': one of auto, obs, info, method, none"),
    (
        ["env=minigrid", "network.encoder.keys.image.scale=-1"],
        "network.encoder.keys.image.scale=-1: what the image's values are divided by, > 0 (255 for pixels)",
    ),
    (
        ["env=minigrid", "network.encoder.keys.image.scale=abc"],
        "network.encoder.keys.image.scale='abc': expected float",
    ),
    (["network.encoder.hidden=[100000,100000]"], "a network of 20,001,500,003 parameters needs"),
    (["-m", "seed=0,-1"], "seed=-1: an integer from 0 to"),
    (["env=atari", "env.game=pongg"], "env.game='pongg': not an ALE game (did you mean pong?)"),
    (["env=pong", "+env.kwargs.frameskip=4"], "a frame skip in the ALE env as well would repeat each action"),
    (["env=pong", "+env.kwargs.mode=1"], "env.kwargs={'mode': 1}: AtariVectorEnv does not take mode here"),
    (
        ["network/encoder=nature_cnn"],
        "needs image observations ([channels, height, width]), CartPole-v1 gives shape [4]",
    ),
    (["env=catch", "network/encoder=nature_cnn"], "10x5 images are too small for kernels [8, 4, 3]"),
    (
        ["logger=[wandb,tensorbord]"],
        "logger=tensorbord: no such option (did you mean tensorboard?); valid: csv, tensorboard, wandb",
    ),
    (
        ["logger=wandb", "logger.wandb.mode=onlin"],
        "logger.wandb.mode='onlin': expected one of online, offline, disabled or null",
    ),
    (["-m", "seed=0,1", "replay.n_stepz=1,2"], "replay.n_stepz: no such key in the config"),
    (
        ["-m", "algo=dqn,double_dqn", "replay.learning_starts=500"],  # the default algo's replay has no such key
        "replay.learning_starts: no such key in the config; to add a key, prefix it with + (in a sweep, ++ sets",
    ),
    (
        ["algo=dqn", "env=pong", "replay.capacity=100_000_000"],
        "replay.capacity=100000000: the buffer (7,527 bytes a transition) needs 701.0 GiB",
    ),
]


@pytest.mark.parametrize("args, message", BAD)
def test_bad_input_fails_before_training_with_one_clear_line(tmp_path, args, message, monkeypatch, capsys, never_train):
    """Through the command line's own entry point, in this process (tests/config/test_fuzz.py also sends
    a sample of such cases through a real ``python -m rlfw``)."""
    monkeypatch.chdir(tmp_path)
    args = [*args, f"hydra.run.dir={tmp_path / 'run'}", f"hydra.sweep.dir={tmp_path / 'sweep'}"]
    code, out, err = run_in_process(args, capsys)
    check_refused(code, out, err, tmp_path)
    assert message in err


def test_cfg_job_prints_the_composed_config_without_training(tmp_path):
    result = run_cli("algo=dqn", "env=acrobot", "--cfg", "job", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "id: Acrobot-v1" in result.stdout and "name: dqn" in result.stdout
    assert "batch_size: 256" in result.stdout  # from conf/tuned/dqn_acrobot.yaml
    assert not (tmp_path / "outputs").exists()


def test_a_short_run_lands_under_outputs_writes_its_folder_and_returns_the_eval(tmp_path):
    overrides = ["algo=ppo", "total_env_steps=2048", "eval.every=1024", "log_every=1"]
    result = run_cli(*overrides, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (run_dir,) = (tmp_path / "outputs" / "ppo_cartpole").iterdir()  # the default folder, under the working one
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["env_steps"] == 2048 and summary["algo"] == "ppo" and summary["env"] == "CartPole-v1"
    assert [e["env_steps"] for e in summary["evals"]] == [1024, 2048]
    assert summary["eval_return_mean"] == summary["evals"][-1]["return_mean"] > 0
    assert summary["versions"]["torch"].startswith("2.13.0")
    assert summary["overrides"] == overrides
    assert set(summary["time_seconds"]) == {"act", "env", "update", "evaluate", "other"}
    assert summary["git_dirty"] in (True, False) and len(summary["git_commit"]) == 40
    assert (run_dir / ".hydra" / "config.yaml").exists()
    assert (run_dir / "checkpoints" / "last.ckpt").exists() and (run_dir / "checkpoints" / "best.ckpt").exists()
    assert (run_dir / "resolved.yaml").exists()
    header = (run_dir / "metrics.csv").read_text().splitlines()[0].split(",")
    assert {"step", "eval/return_mean", "train/loss_policy", "train/approx_kl", "time/steps_per_s"} <= set(header)
    assert {"time/act_s", "time/env_s", "time/update_s", "time/evaluate_s", "time/other_s"} <= set(header)
    assert "env steps" in result.stderr + result.stdout  # the progress line
    assert "time: act " in result.stderr + result.stdout  # where the time went, at the end


def test_help_speaks_rlfw():
    result = run_cli("--help")
    assert result.returncode == 0
    assert result.stdout.startswith("rlfw: reinforcement learning where an algorithm is a config combination.")
    assert "powered by Hydra" not in result.stdout
    assert (
        "replay: dataset, mixed, prioritized, rollout, uniform" in result.stdout
        and "python -m rlfw -m algo=dqn,double_dqn" in result.stdout
    )


def test_a_third_party_env_by_module_and_id_runs_into_a_folder_named_by_its_id(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default run folder is outputs/... under the working folder
    summary = rlfw.train(["env=gym", "env.id=tests.env.corridor:RlfwTest/Corridor-v0", "total_env_steps=1024"])
    assert summary["run_dir"].parent == Path("outputs/ppo_RlfwTest-Corridor-v0")
    assert (summary["run_dir"] / "summary.json").exists()


def test_a_valid_multirun_is_checked_up_front_and_runs_every_job(tmp_path, capsys):
    args = ["-m", "algo=ppo,a2c", "seed=0,1", "total_env_steps=512", "eval.every=512", f"hydra.sweep.dir={tmp_path}"]
    code, stdout, stderr = run_in_process(args, capsys)
    # job folders are named by what varies, never by the overrides every job shares
    assert code == 0, stderr
    summaries = sorted(tmp_path.glob("*/summary.json"))
    assert [p.parent.name for p in summaries] == [
        "0_algo=ppo,seed=0",
        "1_algo=ppo,seed=1",
        "2_algo=a2c,seed=0",
        "3_algo=a2c,seed=1",
    ]
    # the sweep ends with one row per variant, seeds pooled, printed and written beside the jobs
    table = (tmp_path / "summary.md").read_text()
    assert "| algo=ppo | 2 |" in table and "| algo=a2c | 2 |" in table and table in stdout
    assert (tmp_path / "summary.csv").read_text().count("\n") == 3
