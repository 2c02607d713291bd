"""PettingZoo envs as rows (``env=pettingzoo``): shapes, episode ends, ids, masks, turn-based games, bad input."""

import numpy as np
import pytest

from rlfw.env.packed import KEY
from rlfw.env.pettingzoo import PettingZooEnv
from rlfw.env.spec import ACTING
from rlfw.errors import ConfigError, EnvError

COUNTERS = "tests.env.agents:Counters"
MPE = "mpe2.simple_spread_v3:parallel_env"


def open_actions(env: PettingZooEnv, obs: np.ndarray) -> np.ndarray:
    """Each row's open actions, from its observation's ``action_mask`` part."""
    part = env.spec.mask
    assert part is not None
    return obs[:, part.start : part.start + part.size] > 0


def test_each_copy_s_agents_are_rows_and_an_episode_ends_for_them_together():
    env = PettingZooEnv(COUNTERS, kwargs={"agents": 3, "length": 2})
    assert env.spec.agents == ("agent_0", "agent_1", "agent_2") and env.spec.mask is not None
    assert [p.key for p in env.spec.parts] == [KEY, "observation"] and env.spec.obs_shape == (5,)
    envs = env.make(2)
    obs, info = envs.reset(seed=0)
    assert envs.num_envs == 6 and obs.shape == (6, 5) and ACTING not in info  # every row acts at every step
    closed = obs[:, 4].astype(int)
    assert not open_actions(env, obs)[np.arange(6), closed].any() and open_actions(env, obs).sum() == 6 * 3
    right = (closed + 1) % 4
    _, reward, terminated, truncated, info = envs.step(right)
    assert (reward == 1).all() and not (terminated | truncated).any() and "final_obs" not in info
    last = envs.obs.copy()
    _, _, _, truncated, info = envs.step(right)
    assert truncated.all() and info["final_obs"].shape == (6, 5)
    assert not np.array_equal(info["final_obs"], last)  # the episodes' last observations, then the next's first


def test_agent_id_appends_each_agent_s_one_hot_index():
    env = PettingZooEnv(COUNTERS, kwargs={"agents": 2}, agent_id=True, mask="none")
    assert env.spec.obs_shape == (3,) and env.spec.mask is None
    obs, _ = env.make(2).reset(seed=0)
    np.testing.assert_array_equal(obs[:, 1:], np.tile(np.eye(2), (2, 1)))


def test_masks_from_each_agent_s_info():
    env = PettingZooEnv(COUNTERS, kwargs={"masks": "info"})
    assert env.mask == "info" and env.spec.mask is not None
    obs, _ = env.make(1).reset(seed=1)
    assert open_actions(env, obs).shape == (2, 4) and (open_actions(env, obs).sum(1) == 3).all()


def test_an_agent_that_leaves_before_the_others_is_named():
    envs = PettingZooEnv(COUNTERS, kwargs={"leave": True}).make(1)
    envs.reset(seed=0)
    envs.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(
        EnvError, match=r"agent_1 left copy 0's episode before the other agents; env\.agents_leave=true"
    ):
        envs.step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize("masks", ["obs", "none"])
def test_with_agents_leave_a_row_that_left_does_not_act_until_the_episode_ends(masks):
    env = PettingZooEnv(COUNTERS, kwargs={"leave": True, "masks": masks}, agents_leave=True)
    assert env.spec.idle and (env.spec.mask is None) == (masks == "none")  # no mask invented for the rows that left
    envs = env.make(2)
    obs, info = envs.reset(seed=0)
    assert info[ACTING].all()
    envs.step(np.zeros(4, dtype=np.int64))
    last = envs.obs.copy()
    obs, _, _, truncated, info = envs.step(np.zeros(4, dtype=np.int64))  # agent_1 leaves each copy
    np.testing.assert_array_equal(truncated, [False, True, False, True])
    assert not np.array_equal(info["final_obs"][[1, 3]], last[[1, 3]])  # its last observation, not the one before
    assert (obs[[1, 3]] == 0).all() and info[ACTING].tolist() == [True, False, True, False]
    obs, _, _, truncated, info = envs.step(np.zeros(4, dtype=np.int64))  # agent_0's episode ends: the copies reset
    np.testing.assert_array_equal(truncated, [True, False, True, False])
    assert info[ACTING].all()  # both agents of the next episode act


@pytest.mark.parametrize(
    "id, kwargs, match",
    [
        ("no_such_module_rlfw:env", {}, r"cannot import 'no_such_module_rlfw'"),
        ("tests.env.agents:Nothing", {}, r"tests.env.agents has no Nothing that makes an env"),
        ("tests.env.corridor:Corridor", {}, r"made a Corridor, not a PettingZoo env \(AEC or Parallel\)"),
        ("butterfly/pistonbal-v6", {}, r"not in PettingZoo's registry.*\(did you mean butterfly/pistonball-v6\?\)"),
        (
            "mpe2.simple_adversary_v3:parallel_env",
            {},
            r"their observation spaces differ: adversary_0 has Box.*agent_0 Box.*pad_observations_v0 and.*env.agent_id",
        ),
    ],
)
def test_what_is_not_a_parallel_env_with_shared_spaces_is_one_line(id, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        PettingZooEnv(id, kwargs=kwargs)


def test_an_id_of_pettingzoo_s_registry_makes_its_parallel_env():
    env = PettingZooEnv("classic/rps-v2")
    assert len(env.spec.agents) == 2 and env.spec.num_actions == 3


def test_mpe_spread_s_three_agents_see_eighteen_numbers_each():
    env = PettingZooEnv(MPE, kwargs={"N": 3, "max_cycles": 25})
    assert len(env.spec.agents) == 3 and env.spec.obs_shape == (18,) and env.spec.num_actions == 5
    envs = env.make(2)
    envs.reset(seed=0)
    ends = [envs.step(np.zeros(6, dtype=np.int64))[3].all() for _ in range(25)]
    assert ends == [False] * 24 + [True]


def test_env_state_packs_the_global_state_after_each_agent_s_observation():
    env = PettingZooEnv(MPE, kwargs={"N": 3}, state=True, agent_id=True)
    assert [(p.key, p.size) for p in env.spec.parts] == [("observation", 21), ("state", 54)]
    obs, _ = env.make(1).reset(seed=0)
    np.testing.assert_array_equal(obs[:, 21:], np.repeat(obs[:1, 21:], 3, 0))  # one state, in every agent's row
    np.testing.assert_array_equal(obs[:, 21:].reshape(3, 3, 18)[0], obs[:, :18])  # MPE's state: the agents' obs


def test_env_state_on_an_env_without_state_is_one_line():
    with pytest.raises(ConfigError, match=r"^env.state=true: tests.env.agents:Counters has no global state\(\)"):
        PettingZooEnv(COUNTERS, state=True)


def test_a_turn_based_game_s_seats_are_rows_that_act_on_their_turn():
    env = PettingZooEnv("classic/tictactoe-v3")
    assert env.turns and env.spec.evaluation == "games" and env.spec.idle and len(env.spec.agents) == 2
    envs = env.make(2)
    obs, info = envs.reset(seed=0)
    np.testing.assert_array_equal(info[ACTING], [True, False, True, False])  # player_1 waits
    assert open_actions(env, obs)[[0, 2]].sum() == 18  # the mover's open squares
    moves = [0, 3, 1, 4, 2]  # player_0 takes the top row, player_1 blocks nothing
    for turn, square in enumerate(moves):
        seat = turn % 2
        actions = np.full(4, 8)  # a waiting seat's action goes nowhere (8 is never played here)
        actions[[seat, 2 + seat]] = square
        _, reward, terminated, _, info = envs.step(actions)
        if turn < len(moves) - 1:
            assert not terminated.any() and not reward.any()
            np.testing.assert_array_equal(info[ACTING], [seat == 1, seat == 0] * 2)  # the other seat's turn
    np.testing.assert_array_equal(reward, [1, -1, 1, -1])  # the result reaches both seats at the game's end
    assert terminated.all() and "final_obs" in info


def test_mpe_and_a_game_resume_exactly_from_their_saved_state():
    """MPE's world and a classic game's board are plain Python: a saved vector env, restored into a fresh
    one, steps exactly as the original goes on stepping."""
    from rlfw.env.snapshot import restore, snapshot

    for env, actions in ((PettingZooEnv(MPE, kwargs={"N": 3}), 5), (PettingZooEnv("classic/connect_four-v3"), 7)):
        rng = np.random.default_rng(0)
        moves = [rng.integers(actions, size=2 * len(env.spec.agents)) for _ in range(40)]
        original = env.make(2)
        original.reset(seed=0)
        for move in moves[:5]:
            original.step(move)
        state = snapshot(original)
        resumed = env.make(2)
        resumed.reset(seed=99)
        restore(resumed, state)
        for move in moves[5:]:
            want, got = original.step(move), resumed.step(move)
            for a, b in zip(want[:4], got[:4], strict=True):
                np.testing.assert_array_equal(a, b)


def test_a_game_s_id_may_be_a_module_s_aec_env():
    env = PettingZooEnv("pettingzoo.classic.connect_four_v3:env")
    assert env.spec.evaluation == "games" and env.spec.obs_shape == (7 + 6 * 7 * 2,) and env.spec.num_actions == 7
