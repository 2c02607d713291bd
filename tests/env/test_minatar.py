"""MinAtar (``env=minatar env.game=...``): the five games as uint8 channel-first frames, seeded
through gymnasium, with one-line errors for a bad game or a missing package."""

import numpy as np
import pytest

from rlfw.config.folders import env_folder
from rlfw.env.minatar import MinAtar
from rlfw.errors import ConfigError


@pytest.mark.parametrize(("game", "channels", "minimal"), [("breakout", 4, 3), ("space_invaders", 6, 4)])
def test_frames_are_channel_first_uint8_with_all_six_actions_unless_minimal(game, channels, minimal):
    env = MinAtar(game)
    assert env.spec.obs_shape == (channels, 10, 10) and env.spec.obs_dtype == np.uint8 and env.spec.num_actions == 6
    assert MinAtar(game, minimal_actions=True).spec.num_actions == minimal
    envs = env.make(2)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (2, channels, 10, 10) and set(np.unique(obs)) <= {0, 255} and obs.any()
    envs.close()


def test_the_same_seed_plays_the_same_game():
    def play(seed: int) -> list[np.ndarray]:
        envs = MinAtar("breakout").make(2)
        frames = [envs.reset(seed=seed)[0]]
        actions = np.random.default_rng(0).integers(6, size=(300, 2))
        frames += [envs.step(a)[0] for a in actions]  # sticky actions draw from the game's generator too
        envs.close()
        return frames

    a, b, c = play(1), play(1), play(2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_a_game_that_is_not_minatars_is_named_with_the_five_that_are():
    with pytest.raises(
        ConfigError, match=r"^env.game='pong': one of asterix, breakout, freeway, seaquest, space_invaders$"
    ):
        MinAtar("pong")


def test_run_folders_are_named_by_the_game():
    assert env_folder("minatar", {"game": "breakout"}) == "minatar-breakout"
