"""The Atari env option: what each backend gives, and training vs evaluation envs."""

import numpy as np
import pytest

from rlfw.env.atari import AtariEnv
from rlfw.errors import ConfigError


@pytest.mark.parametrize("backend, padding", [("ale", "zeros"), ("gymnasium", "first")])
def test_backends_give_stacked_uint8_frames_padded_as_the_spec_says(backend, padding):
    env = AtariEnv("pong", backend=backend, threads=1)
    assert env.spec.obs_shape == (4, 84, 84) and env.spec.obs_dtype == np.uint8 and env.spec.frame_stack == 4
    assert env.spec.stack_padding == padding and env.spec.num_actions == 6
    envs = env.make(2)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (2, 4, 84, 84) and obs.dtype == np.uint8
    older = obs[:, :3]
    if padding == "zeros":
        assert (older == 0).all()
    else:
        assert (older == obs[:, 3:]).all()
    envs.close()


@pytest.mark.parametrize("backend", ["ale", "gymnasium"])
def test_training_episodes_end_at_each_life_evaluation_plays_the_whole_game(backend):
    # Breakout has 5 lives: with random play, training envs end an episode per life lost
    env = AtariEnv("breakout", backend=backend, threads=1)
    ends = {}
    for evaluation in (False, True):
        envs = env.make(2, evaluation=evaluation)
        envs.reset(seed=1)
        actions = np.random.default_rng(0).integers(4, size=(1500, 2))
        ends[evaluation] = sum(int((t | u).sum()) for t, u in (envs.step(a)[2:4] for a in actions))
        envs.close()
    assert ends[True] >= 1 and ends[False] >= 3 * ends[True], ends


def test_an_unknown_game_lists_close_matches():
    with pytest.raises(ConfigError, match=r"env.game='breakuot': not an ALE game \(did you mean breakout\?\)"):
        AtariEnv("breakuot")
