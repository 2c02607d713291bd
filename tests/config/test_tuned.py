"""Invariants of the shipped tuned values (conf/tuned) that their comments promise."""

import pytest
from hydra import initialize_config_dir

from rlfw.config.path import config_dir
from rlfw.config.tuned import untuned
from tests.helpers import config


@pytest.mark.parametrize("algo", ["dqn", "double_dqn"])
@pytest.mark.parametrize("env", ["pong", "breakout"])
def test_atari_dqn_keeps_cleanrls_one_update_of_batch_32_per_4_env_steps(algo, env):
    """The layout (envs stepped together, updates per vector step) may differ from CleanRL's one env;
    the updates per env step, which learning depends on, may not."""
    cfg = config(f"algo={algo}", f"env={env}")
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
