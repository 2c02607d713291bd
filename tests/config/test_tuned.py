"""Invariants of the shipped tuned values (conf/tuned) that their comments promise."""

from pathlib import Path

import pytest
import yaml
from hydra import initialize_config_dir

from rlfw.compare.runs import flatten
from rlfw.config.path import config_dir
from rlfw.config.tuned import untuned
from tests.helpers import config


@pytest.mark.parametrize("algo", ["dqn", "double_dqn"])
@pytest.mark.parametrize("env", ["pong", "breakout", "atari env.game=ms_pacman"])
def test_atari_dqn_keeps_cleanrls_one_update_of_batch_32_per_4_env_steps(algo, env):
    """The layout (envs stepped together, updates per vector step) may differ from CleanRL's one env;
    the updates per env step, which learning depends on, may not."""
    cfg = config(f"algo={algo}", *f"env={env}".split())
    replay = cfg["replay"]
    assert cfg["num_envs"] * replay["collect_steps"] == 4 * replay["updates"] and replay["batch_size"] == 32
    assert cfg["target"]["period"] * 4 == 1000  # a target copy every 1,000 env steps, counted in updates


def test_atari_rainbow_keeps_the_papers_update_and_target_periods():
    """Hessel et al.: one update per 4 agent steps, a target copy every 32k frames (8k agent steps)."""
    cfg = config("algo=rainbow", "env=pong")
    replay = cfg["replay"]
    steps_per_update = cfg["num_envs"] * replay["collect_steps"] / replay["updates"]
    assert steps_per_update == 4 and replay["batch_size"] == 32
    assert cfg["target"]["period"] * steps_per_update == 8_000


def test_a_combination_without_tuned_values_says_so_in_one_line():
    with initialize_config_dir(config_dir=config_dir(), version_base=None):
        line = untuned({"algo": "ppo", "env": "taxi", "tuned": "ppo_taxi"})
        assert untuned({"algo": "dqn", "env": "taxi", "tuned": "dqn_taxi"}) is None  # conf/tuned/dqn_taxi.yaml
        assert untuned({"algo": "ppo", "env": "taxi", "tuned": None}) is None  # tuned=null: asked for none
    assert line is not None and "\n" not in line
    assert line.startswith("no tuned values for algo=ppo env=taxi (looked for conf/tuned/ppo_taxi.yaml)")
    assert untuned({"algo": "ppo", "env": "taxi", "tuned": "ppo_taxi"}) == line  # Hydra not started: as rlfw.train


@pytest.mark.parametrize(
    "args, family",
    [
        (["algo=ppo", "env=atari", "env.game=ms_pacman"], "ppo_atari"),
        (["algo=a2c", "env=breakout"], "a2c_atari"),
        (["algo=rainbow", "env=atari", "env.game=qbert"], "rainbow_atari"),
        (["algo=c51", "env=atari", "env.game=qbert"], "c51_atari"),
        (["algo=c51", "env=pong"], "c51_atari"),
        (["algo=double_dqn", "env=minatar", "env.game=asterix"], "dqn_minatar"),
        (["algo=c51", "env=minatar", "env.game=seaquest"], "c51_minatar"),
        (["algo=a2c", "env=minatar", "env.game=freeway"], "a2c_minatar"),
        (["algo=ddpg", "env=mujoco", "env.id=Ant-v5"], "ddpg_mujoco"),
        (["algo=ddpg", "env=hopper"], "ddpg_mujoco"),
        (["algo=sac", "env=humanoid"], "sac_mujoco"),
        (["algo=td3", "env=inverted_pendulum"], "td3_mujoco"),
        (["algo=ppo_lstm", "env=popgym", "env.task=RepeatFirstEasy"], "ppo_lstm_popgym"),
        (["algo=ppo_lstm", "env=popgym_repeat_previous"], "ppo_lstm_popgym"),
        (["algo=ppo_lstm", "env=popgym_repeat_first"], "ppo_lstm_popgym"),
        (["algo=a2c_lstm", "env=popgym", "env.task=CountRecallEasy"], "a2c_lstm_popgym"),
        (["algo=a2c_lstm", "env=popgym_cartpole"], "a2c_lstm_popgym"),
    ],
)
def test_a_family_s_tuned_file_reaches_every_env_of_the_family(args, family):
    """A family file (conf/tuned/<algo>_<family>.yaml) holds one set of values; the presets and any game
    or task of the family get every value it sets."""
    values = yaml.safe_load((Path(config_dir()) / "tuned" / f"{family}.yaml").read_text())
    values.pop("defaults", None)
    cfg = flatten(config(*args))
    assert values
    for key, value in flatten(values).items():
        assert cfg[key] == value, key
