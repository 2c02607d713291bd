"""rlfw's ppo_lstm against SB3-contrib's RecurrentPPO on CartPole without velocities: training steps/s
and wall seconds to a greedy-eval return of 475; and what memory costs rlfw per env step.

    pip install -e ".[bench]" && python benchmarks/recurrent.py [--seeds 0 1 2] [--cost-steps 20480]

Both sides run benchmarks/time_to_score.py's protocol (each run in its own process with one torch
thread, one at a time; greedy eval of 10 episodes every 5,000 env steps; stop at 475 or 100k env
steps) with RL Zoo's hyperparams/ppo_lstm.yml values for CartPoleNoVel-v1, which rlfw's
conf/tuned/ppo_lstm_cartpole_novel.yaml ships: 8 envs, 32-step rollouts in one minibatch, 20 epochs,
lr 1e-3 decaying linearly, gae_lambda 0.8, gamma 0.98, normalized observations, a 64-unit LSTM each for
the actor and the critic (rlfw's tuned file ships a GRU; here it runs an LSTM, as SB3-contrib's). The
env is rlfw's rlfw/CartPoleNoVel-v1 on both sides. The networks differ in one layer's place: RL Zoo's
64-unit ReLU layer comes after the LSTM, rlfw's encoder before it. RL Zoo also anneals the clip range.

Then the cost of memory in rlfw: ppo_lstm against the same config with the feed-forward head
(network/head=actor_critic), a fixed budget of env steps each, no stop: steps/s and their ratio.
"""

from __future__ import annotations

import argparse
import statistics

from time_to_score import Run, compare, learn_sb3, off_sys_path, run_child
from time_to_score import run_rlfw as run_rlfw_with

SOLVED, BUDGET, EVAL_EVERY, EVAL_EPISODES = 475.0, 100_000, 5_000, 10
ENV = "rlfw/CartPoleNoVel-v1"
# RL Zoo, hyperparams/ppo_lstm.yml, CartPoleNoVel-v1 (learning rate and clip range "lin_": decaying to 0)
SB3 = dict(n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20, ent_coef=0.0)
SB3_LR, SB3_CLIP, SB3_ENVS = 1e-3, 0.2, 8
SB3_POLICY = dict(ortho_init=False, lstm_hidden_size=64, enable_critic_lstm=True, net_arch=dict(pi=[64], vf=[64]))


def run_rlfw(algo: str, seed: int) -> Run:
    # an LSTM, as SB3-contrib's (the shipped tuned file picks a GRU)
    return run_rlfw_with("algo=ppo_lstm", "env=cartpole_novel", f"seed={seed}", "network.head.cell=lstm")


def run_sb3(algo: str, seed: int) -> Run:
    return run_child(__file__, algo, str(seed))


def sb3_child(seed: int) -> None:
    import torch
    from sb3_contrib import RecurrentPPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize

    import rlfw.env.partial  # noqa: F401  (registers rlfw/CartPoleNoVel-v1)

    torch.set_num_threads(1)
    env = VecNormalize(make_vec_env(ENV, n_envs=SB3_ENVS, seed=seed), norm_obs=True, norm_reward=False)
    model = RecurrentPPO(
        "MlpLstmPolicy",
        env,
        learning_rate=lambda p: SB3_LR * p,
        clip_range=lambda p: SB3_CLIP * p,
        policy_kwargs=dict(activation_fn=torch.nn.ReLU, **SB3_POLICY),
        seed=seed,
        device="cpu",
        **SB3,
    )
    # EvalCallback copies the training env's normalization statistics into this one before each evaluation
    eval_env = VecNormalize(
        make_vec_env(ENV, n_envs=EVAL_EPISODES, seed=seed + 1_000_003), training=False, norm_reward=False
    )
    learn_sb3(model, BUDGET, eval_env, SOLVED, EVAL_EVERY, EVAL_EPISODES)


def cost_of_memory(seeds: list[int], steps: int) -> None:
    """rlfw's steps/s with the recurrent head and with the feed-forward one, the same values otherwise."""
    fixed = (f"total_env_steps={steps}", "stop_when_solved=false", f"eval.every={steps}")
    heads = {"ppo_lstm": (), "feed-forward": ("network/head=actor_critic",)}
    speed: dict[str, list[float]] = {name: [] for name in heads}
    for seed in seeds:
        for name, head in heads.items():
            run = run_rlfw_with("algo=ppo_lstm", "env=cartpole_novel", f"seed={seed}", *head, *fixed)
            speed[name].append(run["steps_per_s"])
            print(f"cost  {name:12} {seed:4d} {run['steps_per_s']:8.0f} steps/s", flush=True)
    lstm, ff = (statistics.median(speed[name]) for name in heads)
    print(f"memory's cost: median steps/s ppo_lstm {lstm:.0f} vs feed-forward {ff:.0f} (ratio {lstm / ff:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--cost-steps", type=int, default=20_480, help="env steps of each cost-of-memory run")
    parser.add_argument("--sb3", nargs=2, metavar=("ALGO", "SEED"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sb3:
        off_sys_path()
        return sb3_child(int(args.sb3[1]))
    compare(["lstm"], args.seeds, {"rlfw": run_rlfw, "sb3": run_sb3}, "475")
    cost_of_memory(args.seeds, args.cost_steps)


if __name__ == "__main__":
    main()
