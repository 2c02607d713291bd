"""Learning, not just running: each algorithm's default config reaches the return bar within budget.

Every case runs ``algo=<algo> env=<env> seed=<seed>`` with no other flag, so it tests the shipped
defaults (conf/tuned). Runs stop once the greedy eval (10 episodes) reaches env.solved_return.

The README's test command runs each case marked ``first`` on its first seed: a learning test for each
family of algorithm (DQN's on pixels; Double DQN and C51 through Rainbow's, which trains C51's loss with
the Double target; PPO, A2C, recurrent PPO, MAPPO; SAC for the off-policy actor-critics, whose TD3 and
DDPG variants learn under ``-m seeds``, their updates checked in tests/loss and tests/run/test_update.py),
and each kind of input (vectors, pixels, continuous actions) one. The
other seeds and cases carry the ``seeds`` mark, which that command leaves out (pyproject.toml's
addopts): ``python -m pytest -n 2 -m seeds`` runs them (about 10 minutes on 2 cores).
"""

import pytest

import rlfw
from rlfw.config.build import build_parts
from rlfw.config.job import Job
from rlfw.machine import native_bf16
from rlfw.run.train import train
from tests.helpers import config

CASES = [
    # algo, env, env-step budget, the bar the final greedy eval mean must clear, seeds, in the default
    # command: "first" (its first seed) or "none"; the longest first
    # off-policy actor-critics (RL Zoo: SAC -157 and TD3 -152 within 20k env steps); one seed each, as an
    # update per env step costs a minute or more a run on 2 cores
    ("sac", "pendulum", 20_000, -250.0, (0,), "first"),
    ("td3", "pendulum", 20_000, -250.0, (0,), "none"),
    # DDPG is TD3's parts with a delay of 1 and no smoothing; TD3's and DDPG's learning: -m seeds (SAC's
    # case keeps the off-policy continuous path in the default command; tests/loss and
    # tests/run/test_update.py check TD3's smoothed, delayed targets and DDPG's every-update ones)
    ("ddpg", "pendulum", 20_000, -250.0, (0,), "none"),
    ("ppo", "cartpole", 100_000, 475.0, (0, 1, 2), "first"),
    ("dqn", "cartpole", 100_000, 475.0, (0, 1, 2), "none"),  # DQN's default-command case: catch (pixels)
    # Double DQN and C51 are Rainbow's target and loss: Rainbow's case learns through both in the default
    # command (tests/loss checks each one's target); their own cases: -m seeds
    ("double_dqn", "cartpole", 100_000, 475.0, (0, 1, 2), "none"),
    # C51 and Rainbow (CleanRL's c51.py: 481.2 +- 20.5 on CartPole-v1 at 500k env steps)
    ("c51", "cartpole", 100_000, 475.0, (0, 1, 2), "none"),
    ("rainbow", "cartpole", 100_000, 475.0, (0, 1, 2), "first"),
    ("a2c", "cartpole", 500_000, 475.0, (0, 1, 2), "first"),
    # memory: POPGym's RepeatFirstEasy (the first card's suit, all episode: seed 0 solves at 20k env steps,
    # 18 s on a 2-core Xeon), in the default command; CartPole without velocities (RL Zoo's ppo_lstm: 500
    # +- 0 on CartPoleNoVel-v1; seed 0 solves at 50k, 52 s), -m seeds
    ("ppo_lstm", "popgym_repeat_first", 150_000, 0.999, (0, 1, 2), "first"),
    ("ppo_lstm", "cartpole_novel", 100_000, 475.0, (0, 1, 2), "none"),
    # POPGym's RepeatPreviousEasy to its ceiling of 1 (the suit of the card 4 steps back, every step)
    ("ppo_lstm", "popgym_repeat_previous", 150_000, 0.999, (0, 1, 2), "none"),
    ("ppo", "acrobot", 200_000, -100.0, (0, 1, 2), "none"),  # PPO's: cartpole, catch, pendulum
    ("dqn", "acrobot", 100_000, -100.0, (0, 1, 2), "none"),  # DQN's default-command cases: cartpole, catch
    # the pixel path: stacked uint8 frames, the frame-once replay and a conv encoder
    ("dqn", "catch", 20_000, 0.9, (0, 1, 2), "first"),
    ("ppo", "catch", 50_000, 0.9, (0, 1, 2), "first"),
    # continuous actions: a Gaussian policy, normalized observations (RLlib's PPO tests use the Pendulum bar)
    ("ppo", "pendulum", 100_000, -300.0, (0, 1, 2), "first"),
    ("a2c", "inverted_pendulum", 100_000, 950.0, (0, 1, 2), "first"),
    # Taxi with its info mask (gymnasium's reward_threshold 8; docs/guide/masks.md: -32.9 without the mask)
    ("dqn", "taxi", 100_000, 8.0, (0, 1, 2), "none"),
    # a Dict observation (a 7x7 grid and a direction) through the multi encoder: seed 0 at 0.96 from 75k
    ("ppo", "minigrid", 150_000, 0.9, (0, 1), "none"),
    # many agents as rows (MPE's Simple Spread, each agent's return; a uniform random policy's is -27.8):
    # MAPPO's centralized critic in the default command; IPPO's (algo=ppo) and VDN's (about 100 s a run)
    # with -m seeds
    ("mappo", "mpe_spread", 50_000, -22.0, (0, 1, 2), "first"),
    ("ppo", "mpe_spread", 50_000, -22.0, (0, 1, 2), "none"),
    ("vdn", "mpe_spread", 50_000, -22.0, (0, 1, 2), "none"),
]


# Seeds measured short of their bar (-m seeds), with the figure: expected to fail, not strictly.
SHORT = {
    # docs/results.md, "After the hot path": 4/5 seeds solve; seed 1 again on 2026-11-29 (AMD EPYC): 326.9
    # at 100k, evals 250-467 from 35k on. An LSTM for the tuned GRU solves it at 85k, but ended seed 0 at
    # 139 when the GRU was chosen (conf/tuned/ppo_lstm_cartpole_novel.yaml)
    ("ppo_lstm", "cartpole_novel", 1): "hovers below 475 with the tuned GRU",
}


def in_default(seed: int, seeds: tuple[int, ...], default: str) -> bool:
    return default == "first" and seed == seeds[0]


def marks(algo: str, env: str, seed: int, seeds: tuple[int, ...], default: str) -> list:
    short = SHORT.get((algo, env, seed))
    return [
        *([] if in_default(seed, seeds, default) else [pytest.mark.seeds]),
        *([pytest.mark.xfail(reason=short, strict=False)] if short else []),
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "algo, env, budget, bar, seed",
    [
        pytest.param(a, e, budget, bar, seed, marks=marks(a, e, seed, seeds, default))
        for a, e, budget, bar, seeds, default in CASES
        for seed in seeds
    ],
    ids=[f"{a}-{e}-{seed}" for a, e, _, _, seeds, _ in CASES for seed in seeds],
)
def test_default_config_learns(tmp_path, algo, env, budget, bar, seed):
    assert_learns(tmp_path, budget, bar, f"algo={algo}", f"env={env}", f"seed={seed}")


@pytest.mark.slow
@pytest.mark.skipif(native_bf16() is None, reason="network.precision=auto is fp32 here: the SAC case is this one")
def test_sac_learns_in_fp32_as_its_bf16_default_does(tmp_path):
    """On a CPU with bf16 instructions the SAC case above learns with its 256x256 networks' products in
    bf16 (network.precision=auto, docs/guide/precision.md); the same run in fp32 reaches the same bar in
    the same budget: the tolerance between the two is the bar's band, -250 to the solved -200 and up."""
    assert_learns(tmp_path, 20_000, -250.0, "algo=sac", "env=pendulum", "seed=0", "network.precision=fp32")


# compile=true (rlfw/run/compiled.py) for one algorithm of each family, with -m seeds: DQN's and SAC's
# compiled runs are slower than their eager ones on a CPU, and the README's command already trains a
# compiled PPO (tests/state/test_resume.py: it resumes to the end of the run never stopped).
COMPILED = [
    pytest.param("ppo", "cartpole", 100_000, 475.0, marks=pytest.mark.seeds),
    pytest.param("dqn", "cartpole", 100_000, 475.0, marks=pytest.mark.seeds),
    pytest.param("sac", "pendulum", 20_000, -250.0, marks=pytest.mark.seeds),
]


@pytest.mark.slow
@pytest.mark.parametrize("algo, env, budget, bar", COMPILED, ids=[p.values[0] for p in COMPILED])
def test_compiled_run_learns(tmp_path, algo, env, budget, bar):
    assert_learns(tmp_path, budget, bar, f"algo={algo}", f"env={env}", "seed=0", "compile=true")


# ppo_lstm's config and budget with the feed-forward head, and the best greedy eval it may reach: the
# velocities' absence leaves CartPole unsolved; a memoryless guess of the suit 4 cards back scores -0.5
WITHOUT_MEMORY = [
    ("cartpole_novel", 100_000, 475.0),
    ("popgym_repeat_previous", 150_000, 0.0),
    ("popgym_repeat_first", 150_000, 0.0),
]


@pytest.mark.slow
@pytest.mark.seeds
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("env, budget, below", WITHOUT_MEMORY, ids=[env for env, _, _ in WITHOUT_MEMORY])
def test_without_memory_the_same_config_does_not_learn(tmp_path, env, budget, below, seed):
    """What the recurrent head learns (above) the feed-forward one does not: the task needs memory and
    the head gives it."""
    cfg = config("algo=ppo_lstm", f"env={env}", f"seed={seed}", "network/head=actor_critic")
    summary = train(Job(cfg, build_parts(cfg), {"algo": "ppo_lstm", "env": env}, [], []), tmp_path)
    assert summary["env_steps"] == budget and max(e["return_mean"] for e in summary["evals"]) < below


def assert_learns(tmp_path, budget: int, bar: float, *overrides: str) -> None:
    """The config as shipped reaches ``bar`` within its budget: a run stops at its env's own solved return
    (CartPole's 475, Pendulum's -200), or at the bar where the env has none (MPE's Simple Spread)."""
    cfg = config(*overrides)
    if cfg["env"]["solved_return"] is None:
        cfg = config(*overrides, f"env.solved_return={bar}")
    assert cfg["total_env_steps"] == budget
    choices = dict(o.split("=", 1) for o in overrides[:2])
    summary = train(Job(cfg, build_parts(cfg), choices, [], []), tmp_path)
    assert summary["env_steps"] <= budget
    assert summary["eval_return_mean"] >= bar, summary["evals"]


# A family's tuned file on a task or game of the family, seed 0 each (-m seeds). POPGym's
# (conf/tuned/{ppo,a2c}_lstm_popgym.yaml) on RepeatFirstEasy, which no preset names, to its ceiling of 1
# within the shipped budget (seed 0: PPO at 20k env steps, A2C at 420k, about 3 minutes). MinAtar's on
# Breakout within 1M of their 5M env steps: PPO's to a greedy 10 (seed 0: 200k, about 2 minutes), the
# others' to 5 (a uniform random policy scores 0.46): A2C's (seed 0: 100k), DQN's (50k, about 5 minutes:
# an update every env step), C51's (100k, about 10 minutes), Rainbow's (200k, about 15). MuJoCo's on
# InvertedPendulum (its preset's 100k env steps, gymnasium's bar of 950; A2C's in CASES): PPO's (seed 0:
# 20k, 22 s), SAC's (20k, 5 minutes), TD3's (60k, 9 minutes), DDPG's (60k, 6 minutes). Atari's (10M env
# steps) are hours a run here: docs/results.md has their runs.
MINATAR = ("env=minatar", "env.game=breakout", "total_env_steps=1000000")
FAMILY_CASES = [
    ("ppo_lstm", 150_000, 0.998, ("env=popgym", "env.task=RepeatFirstEasy")),
    ("a2c_lstm", 1_000_000, 0.998, ("env=popgym", "env.task=RepeatFirstEasy")),
    ("ppo", 1_000_000, 9.99, (*MINATAR, "env.solved_return=10")),
    ("a2c", 1_000_000, 4.99, (*MINATAR, "env.solved_return=5")),
    ("dqn", 1_000_000, 4.99, (*MINATAR, "env.solved_return=5")),
    ("c51", 1_000_000, 4.99, (*MINATAR, "env.solved_return=5")),
    ("rainbow", 1_000_000, 4.99, (*MINATAR, "env.solved_return=5")),
    *[(algo, 100_000, 949.99, ("env=inverted_pendulum",)) for algo in ("ppo", "sac", "td3", "ddpg")],
]


@pytest.mark.slow
@pytest.mark.seeds
@pytest.mark.parametrize("algo, budget, bar, env", FAMILY_CASES, ids=[f"{a}-{e[0][4:]}" for a, _, _, e in FAMILY_CASES])
def test_a_family_s_values_learn_a_game_of_the_family(tmp_path, algo, budget, bar, env):
    assert_learns(tmp_path, budget, bar, f"algo={algo}", *env, "seed=0")


@pytest.mark.slow
@pytest.mark.seeds
@pytest.mark.parametrize(
    "seed",
    [
        0,
        1,
        # docs/results.md, "Self-play: PPO on Connect Four": 81% as the second player at 100k
        pytest.param(2, marks=pytest.mark.xfail(reason="self-play drifts below 90% as player_1", strict=False)),
    ],
)
def test_self_play_beats_the_random_player_from_both_seats(tmp_path, seed):
    """``algo=ppo env=connect_four`` as shipped: one policy plays both seats; its last evaluation (100
    games a seat against a uniform random player) wins at least 90% from each (PettingZoo's own tutorial,
    MaskablePPO: 86% at 20,480 steps)."""
    pytest.importorskip("pettingzoo")
    summary = self_play(tmp_path, f"seed={seed}")
    final = summary["evals"][-1]
    assert min(final["vs_random_player_0_win"], final["vs_random_player_1_win"]) >= 0.9, final


@pytest.mark.slow
def test_a_short_self_play_beats_the_random_player_and_plays_and_predicts(tmp_path, capsys):
    """A quarter of the shipped budget already wins most games against the random player (a random
    player against itself scores about 0); the agent then plays through ``rlfw.play`` and picks moves
    through ``predict`` from one seat's PettingZoo observation as ``env.last()`` gives it, and exports."""
    pytest.importorskip("pettingzoo")
    from pettingzoo.classic import connect_four_v3

    from rlfw.agent.export import export
    from rlfw.play import main as play

    summary = self_play(tmp_path, "seed=0", "total_env_steps=25000", "eval.every=25000", "eval.episodes=40")
    assert summary["eval_return_mean"] == summary["evals"][-1]["vs_random_score"] > 0.5, summary["evals"][-1]
    play([str(tmp_path), "episodes=20"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines[1:]] == [f"as player_{i} against a random player" for i in (0, 1)]
    game = connect_four_v3.env()
    game.reset(seed=0)
    for _ in range(3):  # column 3 filled: the mask closes it, and predict never picks it
        game.step(3)
        game.step(3)
    obs, *_ = game.last()  # the observation dict as PettingZoo gives it: {"observation", "action_mask"}
    agent = rlfw.load(tmp_path)
    for given in (obs, obs["observation"]):  # the dict itself, or its observation with the mask beside it
        action = int(agent.predict(given, action_mask=None if given is obs else obs["action_mask"])[0])
        assert obs["action_mask"][action] == 1 and action != 3
    export(agent, "onnx", tmp_path / "policy.onnx")  # the file picks the agent's moves on both seats' rows


def self_play(tmp_path, *overrides: str) -> dict:
    cfg = config("algo=ppo", "env=connect_four", *overrides)
    return train(Job(cfg, build_parts(cfg), {"algo": "ppo", "env": "connect_four"}, [], []), tmp_path)
