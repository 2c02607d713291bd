"""Any gymnasium env a user has installed: ``module:id``, ``env.imports``, clear errors for the rest."""

import pytest

from rlfw.config.folders import env_folder
from rlfw.env.gym import GymEnv
from rlfw.errors import ConfigError
from tests.helpers import run

CORRIDOR = "RlfwTest/Corridor-v0"  # registered by importing tests.env.corridor


def test_module_colon_id_imports_the_module_that_registers_the_env():
    env = GymEnv(f"tests.env.corridor:{CORRIDOR}")
    assert env.spec.obs_shape == (5,) and env.spec.num_actions == 2
    envs = env.make(3)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (3, 5)
    envs.close()


def test_module_colon_class_registers_an_env_no_package_registers():
    env = GymEnv("tests.env.masked:MaskedIdentity", kwargs={"dim": 6, "n_invalid": 3})
    assert env.id == "MaskedIdentity" and env.spec.num_actions == 6 and env.spec.mask is not None


def test_env_imports_register_the_env_first():
    assert GymEnv(CORRIDOR, imports=["tests.env.corridor"]).spec.id == CORRIDOR


def test_an_unknown_id_suggests_a_close_match_and_how_to_register_one():
    with pytest.raises(ConfigError, match=r"CartPole-v9'.*\(did you mean CartPole-v1\?\).*env.imports=\[<module>\]"):
        GymEnv("CartPole-v9")


def test_a_module_that_does_not_import_is_named():
    with pytest.raises(ConfigError, match=r"^env.imports: cannot import 'no_such_module_rlfw'"):
        GymEnv("no_such_module_rlfw:Foo-v0")


@pytest.mark.parametrize(
    "choice, env, folder",
    [
        ("cartpole", {"id": "CartPole-v1"}, "cartpole"),
        ("cartpole_novel", {"id": "rlfw/CartPoleNoVel-v1"}, "cartpole_novel"),
        ("gym", {"id": "MountainCar-v0"}, "MountainCar-v0"),
        ("gym", {"id": "ale_py:ALE/Pong-v5"}, "ALE-Pong-v5"),
        ("pong", {"game": "pong"}, "pong"),
        ("atari", {"game": "ms_pacman"}, "ms_pacman"),
    ],
)
def test_run_folders_are_named_by_the_env_id_for_env_gym_and_the_game_for_env_atari(choice, env, folder):
    assert env_folder(choice, env) == folder


def test_ppo_learns_a_multi_discrete_env(tmp_path):
    """MultiDiscrete actions through the same head, explore rule and loss: independent Categoricals."""
    summary = run(
        tmp_path,
        "algo=ppo",
        "env=gym",
        "env.id=tests.env.corridor:RlfwTest/TwinCorridor-v0",
        "env.solved_return=0.85",
        "total_env_steps=20000",
        "eval.every=2048",
    )
    assert summary["eval_return_mean"] >= 0.85 - 1e-6, summary["evals"]


def test_cartpole_without_velocities_shows_position_and_angle_only():
    import gymnasium as gym

    env = GymEnv("rlfw/CartPoleNoVel-v1", imports=["rlfw.env.partial"])
    assert env.spec.obs_shape == (2,) and env.spec.solved_return == 475.0
    partial, full = gym.make("rlfw/CartPoleNoVel-v1"), gym.make("CartPole-v1")
    seen, whole = partial.reset(seed=3)[0], full.reset(seed=3)[0]
    for step in range(20):
        assert seen.shape == (2,) and (seen == whole[[0, 2]]).all()
        seen, whole = partial.step(step % 2)[0], full.step(step % 2)[0]
