"""rlfw vs Stable-Baselines3 on Atari Pong: env and collection rates, PPO and DQN training speed, replay memory.

    pip install -e ".[bench]" && python benchmarks/atari.py [--parts envs ppo floor dqn memory] [--repeats 3] [--epsilons 1.0 0.01]

Every measurement runs in a fresh child process, one at a time, with each side's defaults for
threads (rlfw: its Atari defaults; SB3: torch's, every core). The runs of a part take turns, repeat
by repeat. Prints each repeat, then medians and ratios. Run it on a quiet machine: other busy
processes skew every figure here.

- envs: agent steps/s with 8 envs and random actions, for each rlfw backend and for EnvPool where it
  is installed (env only, the same protocol: 30 no-ops, lives, clipped rewards), and rlfw's
  collector (act, step, store into the PPO rollout) with a free policy and with the real network,
  each against env-only steps on the same envs, taken in turns with it in the same process;
- ppo: training env steps/s over the same env steps, rlfw's tuned PPO (conf/tuned/ppo_atari.yaml)
  against SB3 PPO with RL Zoo's Atari values and wrappers (make_atari_env, VecFrameStack 4, 8 envs);
  rlfw runs with its default precision and, on a CPU with bf16 instructions (where that default is
  bf16 matrix products where they pay), with fp32 as well;
- floor: PPO's floor, the env steps/s the network, optimizer and envs allow with no overhead at all
  (benchmarks/floor.py: each part alone, and the parts in turns as a loop calls them), and DQN's at
  each of --epsilons, in fp32 and, where the CPU has bf16 instructions, the default (auto). With the ppo or dqn
  part, each floor is measured in the same rounds as that part's runs, and printed with SB3's rate
  and rlfw's share of it (rlfw in that precision);
- dqn: the same for DQN, with the fp32 row too (conf/tuned/dqn_atari.yaml against RL Zoo's dqn.yml atari), both learning
  from step 1,000 so that the measured steps include updates, at two fixed epsilons: 1.0 (how a run
  starts; both skip the Q forward when acting at random) and 0.01 (the last 90% of a 10M-step run).
  rlfw's tuned DQN steps 4 envs and updates once per vector step, RL Zoo's one env and once every 4
  steps: the same updates per env step. SB3 runs both layouts, so the ratio to SB3 in rlfw's layout
  says how much of the gain is the layout;
- memory: resident memory of rlfw's filled 1M-transition Pong replay, and what SB3's ReplayBuffer
  allocates for the same capacity (it keeps obs and next_obs whole).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from floor import described, dqn_floor, ppo_floor

ENVS, PPO_STEPS, DQN_STEPS, DQN_STARTS, CAPACITY = 8, 16_384, 6_000, 1_000, 1_000_000
COLLECTOR_STEPS, BLOCK = 2_000, 50  # vector steps


def child(part: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", part, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


# -- children -------------------------------------------------------------------------------------
def cpu() -> dict:
    """The CPU, asked in a child: importing rlfw sets GOMP_SPINCOUNT, which SB3's children must not inherit."""
    from rlfw.machine import cores, cpu_model, native_bf16

    return {"model": cpu_model(), "cores": cores(), "bf16": native_bf16()}


def env_rate(backend: str) -> dict:
    import numpy as np

    from rlfw.env.atari import AtariEnv
    from rlfw.machine import cores

    if backend == "envpool":  # rlfw's training protocol, on EnvPool's own thread pool
        import envpool

        envs = envpool.make(
            "Pong-v5",
            env_type="gymnasium",
            num_envs=ENVS,
            num_threads=cores(),
            seed=0,
            episodic_life=True,
            reward_clip=True,
            repeat_action_probability=0.0,
            noop_max=30,
        )
        envs.reset()
    else:
        envs = AtariEnv("pong", backend=backend).make(ENVS)
        envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(6, size=(2000, ENVS))
    started = time.perf_counter()
    for a in actions:
        envs.step(a)
    return {"steps_per_s": actions.size / (time.perf_counter() - started)}


def collector_rate(policy: str) -> dict:
    """The collector's rate and, over the same envs in the same process, the env-only rate: blocks of
    each take turns, so the host's speed drift (env-only runs in separate processes range from 2,100
    to 3,500 steps/s within minutes here) falls on both alike. The env-only blocks move the envs on
    under the collector, which then acts on an older observation: the same work, for timing."""
    import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

    # isort: split
    import numpy as np
    import torch

    from rlfw.clock import Clock
    from rlfw.config.build import build_parts
    from rlfw.config.preflight import composed
    from rlfw.machine import cores
    from rlfw.run.collector import Collector
    from rlfw.run.timings import Timings

    cfg = composed("algo=ppo", "env=pong")
    parts = build_parts(cfg)
    torch.set_num_threads(cfg["threads"] or cores())
    net, n = parts.net, parts.env.spec.num_actions
    if policy == "free":  # what the collector itself costs: a policy that computes nothing
        outputs = {"logits": torch.zeros(ENVS, n), "value": torch.zeros(ENVS)}

        class Free:
            distribution, mode = net.distribution, net.mode  # the real head's, over free outputs
            recurrent = False

            def for_acting(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
                return outputs

            def open_actions(self, obs: torch.Tensor) -> None:
                return None  # Pong closes no action

        net = Free()
    envs = parts.env.make(ENVS)
    collector = Collector(
        envs, net, parts.explore, parts.replay, parts.env.spec, Clock(), Timings(), 0, torch.device("cpu")
    )
    actions = np.random.default_rng(0).integers(n, size=(BLOCK, ENVS))
    env_time = collector_time = 0.0
    for _ in range(COLLECTOR_STEPS // BLOCK):
        started = time.perf_counter()
        for a in actions:
            envs.step(a)
        env_time += time.perf_counter() - started
        started = time.perf_counter()
        collector.collect(BLOCK)
        collector_time += time.perf_counter() - started
    steps = COLLECTOR_STEPS * ENVS
    return {
        "steps_per_s": steps / collector_time,
        "env_only_steps_per_s": steps / env_time,
        "of_env_only": env_time / collector_time,
    }


def pong_floor(precision: str) -> dict:
    """PPO's floor on Pong (benchmarks/floor.py) with rlfw's tuned PPO: per 1,024 env steps, 16 gradient
    steps at batch 256, 128 acting forwards at batch 8 and 128 steps of the 8 envs."""
    return ppo_floor("env=pong", f"network.precision={precision}")


def pong_dqn_floor(epsilon: str, precision: str) -> dict:
    """DQN's floor on Pong (benchmarks/floor.py) with rlfw's tuned DQN at a fixed epsilon: per 4 env
    steps, one update at batch 32, an acting forward at batch 4 (where some env reads the network) and
    a step of the 4 envs."""
    return dqn_floor(float(epsilon), "env=pong", f"network.precision={precision}")


def rlfw_training(algo: str, epsilon: str, precision: str) -> dict:
    steps = PPO_STEPS if algo == "ppo" else DQN_STEPS
    extra = (
        []
        if algo == "ppo"
        else [f"replay.learning_starts={DQN_STARTS}", f"explore.start={epsilon}", f"explore.end={epsilon}"]
    )
    extra.append(f"network.precision={precision}")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "rlfw",
                f"algo={algo}",
                "env=pong",
                f"total_env_steps={steps}",
                "eval.every=100_000_000",
                "eval.episodes=1",
                "env.max_episode_frames=400",
                *extra,
                f"hydra.run.dir={tmp}",
            ],
            check=True,
            capture_output=True,
        )
        # the run's own figure, with its default metric rows (one per 100 updates): training and the one
        # evaluation at the end, an episode of at most 400 frames (under 0.5% of the run's time)
        rate = json.loads((Path(tmp) / "summary.json").read_text())["steps_per_second"]
    return {"steps_per_s": rate}


def sb3_training(algo: str, epsilon: str | None = None, envs: str = "1") -> dict:
    import ale_py
    import gymnasium as gym
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.env_util import make_atari_env
    from stable_baselines3.common.vec_env import VecFrameStack

    gym.register_envs(ale_py)
    if algo == "ppo":  # RL Zoo hyperparams/ppo.yml, atari
        env = VecFrameStack(make_atari_env("PongNoFrameskip-v4", n_envs=ENVS, seed=0), n_stack=4)
        model = PPO(
            "CnnPolicy",
            env,
            n_steps=128,
            n_epochs=4,
            batch_size=256,
            learning_rate=lambda p: 2.5e-4 * p,
            clip_range=lambda p: 0.1 * p,
            vf_coef=0.5,
            ent_coef=0.01,
            seed=0,
            device="cpu",
        )
        steps = PPO_STEPS
    else:  # RL Zoo hyperparams/dqn.yml, atari (learning_starts lowered as on rlfw's side); with envs=4,
        # rlfw's layout: an update every vector step of 4 envs, the same updates per env step
        n = int(envs)
        env = VecFrameStack(make_atari_env("PongNoFrameskip-v4", n_envs=n, seed=0), n_stack=4)
        model = DQN(
            "CnnPolicy",
            env,
            buffer_size=100_000,
            learning_rate=1e-4,
            batch_size=32,
            learning_starts=DQN_STARTS,
            target_update_interval=1000,
            train_freq=4 // n,
            gradient_steps=1,
            exploration_initial_eps=float(epsilon),
            exploration_final_eps=float(epsilon),
            optimize_memory_usage=False,
            seed=0,
            device="cpu",
        )
        steps = DQN_STEPS
    started = time.perf_counter()
    model.learn(total_timesteps=steps)
    return {"steps_per_s": model.num_timesteps / (time.perf_counter() - started)}


def rlfw_memory() -> dict:
    import numpy as np

    import rlfw  # noqa: F401  (first, as in collector_rate)
    from rlfw.config.build import build_parts
    from rlfw.config.preflight import composed

    before = rss_bytes()
    cfg = composed("algo=dqn", "env=pong", f"replay.capacity={CAPACITY}")
    parts, n = build_parts(cfg), cfg["num_envs"]
    replay, shape = parts.replay, (n, *parts.env.spec.obs_shape)
    frame = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    step = {  # numpy arrays, as the collector hands a vector step over
        "obs": frame,
        "action": np.zeros(n, dtype=np.int64),
        "reward": np.zeros(n, dtype=np.float32),
        "next_obs": frame,
        "terminated": np.zeros(n, dtype=bool),
        "truncated": np.zeros(n, dtype=bool),
    }
    for i in range((CAPACITY + CAPACITY // 10) // n):  # full, and past it: every frame slot written
        step["terminated"][:] = i % 1000 == 999  # an episode start every 1,000 steps writes one frame more
        replay.add(step)
    return {"rss_bytes": rss_bytes() - before, "transitions": len(replay)}


def sb3_memory() -> dict:
    import gymnasium as gym
    import numpy as np
    from stable_baselines3.common.buffers import ReplayBuffer

    obs = gym.spaces.Box(0, 255, (4, 84, 84), np.uint8)
    try:
        buffer = ReplayBuffer(CAPACITY, obs, gym.spaces.Discrete(6), device="cpu", optimize_memory_usage=False)
    except MemoryError as err:  # numpy refuses an array larger than the machine: count what it asks for
        return {"allocated_bytes": 2 * CAPACITY * int(np.prod(obs.shape)), "error": str(err).splitlines()[0]}
    arrays = [v for v in vars(buffer).values() if isinstance(v, np.ndarray)]
    return {"allocated_bytes": sum(a.nbytes for a in arrays)}


CHILDREN = {
    "cpu": cpu,
    "env": env_rate,
    "collector": collector_rate,
    "floor": pong_floor,
    "dqn_floor": pong_dqn_floor,
    "rlfw": rlfw_training,
    "sb3": sb3_training,
    "rlfw_memory": rlfw_memory,
    "sb3_memory": sb3_memory,
}


# -- the parent -----------------------------------------------------------------------------------
def floor_runs(run: list[str], precisions: list[str]) -> list[tuple[str, list[str], str]]:
    """The children that measure ``run``'s floor (``["ppo"]`` or ``["dqn", epsilon]``) in each precision."""
    if run[0] == "ppo":
        return [("floor", [p], f"PPO floor, network.precision={p}") for p in precisions]
    return [("dqn_floor", [run[1], p], f"DQN floor, network.precision={p}") for p in precisions]


def print_floor(run: list[str], precision: str, f: dict, sb3: float | None = None, ours: float | None = None) -> None:
    """A floor's two lines, its parts alone and in turns (benchmarks/floor.py), each against SB3's and
    rlfw's rates (``sb3``, ``ours``) when they ran in the same rounds."""
    alone, in_turns = described(run[0], f, 2)
    for label, rate, what in (
        ("floor", f["steps_per_s"], alone),
        ("floor in turns", f["steps_per_s_in_turns"], in_turns),
    ):
        versus = f", {rate / sb3:.2f}x SB3's {sb3:.0f}; rlfw at {ours / rate:.0%} of it" if sb3 and ours else ""
        print(f"{precision} {run[0].upper()} {label}: {rate:.0f} steps/s{versus} ({what})")


def medians_of(runs: list[tuple[str, list[str], str]], repeats: int) -> list[dict[str, float]]:
    """Each run's medians over ``repeats`` (of every figure its child returns), taken round-robin (run 1,
    run 2, ..., run 1, ...) so that a drift in the machine's speed falls on every run alike."""
    results: list[list[dict]] = [[] for _ in runs]
    for i in range(repeats):
        for (part, args, label), done in zip(runs, results, strict=True):
            done.append(child(part, *args))
            extra = (
                f" (env only in the same process {done[-1]['env_only_steps_per_s']:.0f}, ratio {done[-1]['of_env_only']:.2f})"
                if part == "collector"
                else ""
            )
            print(f"  {label:34} repeat {i + 1}: {done[-1]['steps_per_s']:8.0f} steps/s{extra}", flush=True)
    return [{k: statistics.median(r[k] for r in done) for k in done[0]} for done in results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--parts",
        nargs="+",
        default=["envs", "ppo", "floor", "dqn", "memory"],
        choices=["envs", "ppo", "floor", "dqn", "memory"],
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epsilons", nargs="+", default=["1.0", "0.01"], help="the fixed epsilons DQN is measured at")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(CHILDREN[args.child[0]](*args.child[1:])))
        return
    r = args.repeats
    if "envs" in args.parts:
        print(f"Env and collection rates, Pong, {ENVS} envs (agent steps/s, median of {r}):")
        envpool = [("env", ["envpool"], "EnvPool, env only")] if importlib.util.find_spec("envpool") else []
        ale, gymnasium, free, real, *pool = medians_of(
            [
                ("env", ["ale"], "ale backend, env only"),
                ("env", ["gymnasium"], "gymnasium backend, env only"),
                ("collector", ["free"], "collector, free policy (ale)"),
                ("collector", ["real"], "collector, Nature CNN acting (ale)"),
                *envpool,
            ],
            r,
        )
        print(
            f"envs: ale {ale['steps_per_s']:.0f}, gymnasium {gymnasium['steps_per_s']:.0f} (ale / gymnasium"
            f" {ale['steps_per_s'] / gymnasium['steps_per_s']:.2f}); collector with a free policy {free['steps_per_s']:.0f},"
            f" {free['of_env_only']:.0%} of ale's env-only rate taken in turns with it ({free['steps_per_s'] / ale['steps_per_s']:.0%}"
            f" of the separate env-only runs); with the Nature CNN acting {real['steps_per_s']:.0f}"
            f" ({real['of_env_only']:.0%})",
        )
        print(
            f"envs: EnvPool {pool[0]['steps_per_s']:.0f} (ale / EnvPool {ale['steps_per_s'] / pool[0]['steps_per_s']:.2f})\n"
            if pool
            else "envs: EnvPool not installed (pip install envpool==1.2.5 to measure it)\n",
            flush=True,
        )
    machine = child("cpu")
    bf16 = machine["bf16"]
    print(
        f"CPU: {machine['model']}, {machine['cores']} cores; bf16 instructions: {bf16}; rlfw's default"
        f" (network.precision=auto): {'bf16 where it pays' if bf16 else 'fp32'}\n"
    )
    precisions = ["fp32", "auto"] if bf16 else ["fp32"]
    runs = [["ppo"]] if "ppo" in args.parts else []
    runs += [["dqn", epsilon] for epsilon in args.epsilons] if "dqn" in args.parts else []
    for run in runs:
        what, steps, epsilon = " ".join(run), PPO_STEPS if run[0] == "ppo" else DQN_STEPS, (run[1:] or ["-"])[0]
        print(
            f"{run[0].upper()} on Pong{', epsilon ' + run[1] if run[1:] else ''}, {steps:,} env steps, training env steps/s (median of {r}):"
        )
        sides = [("rlfw", [run[0], epsilon, "auto"], f"rlfw {what}")]
        if bf16:  # the fp32 figure beside the default's
            sides.append(("rlfw", [run[0], epsilon, "fp32"], f"rlfw {what} fp32"))
        peers = [("sb3", run, f"SB3 {what}")]
        if run[0] == "dqn":  # SB3 in rlfw's layout too
            peers.append(("sb3", [*run, "4"], f"SB3 {what}, 4 envs"))
        # the floors in the same rounds as the runs, so that a drift in the machine's speed falls on both
        floors = floor_runs(run, precisions) if "floor" in args.parts else []
        measured = medians_of([*sides, *peers, *floors], r)
        rates = [m["steps_per_s"] for m in measured[: len(sides) + len(peers)]]
        (ours, *fp32), (theirs, *layout) = rates[: len(sides)], rates[len(sides) :]
        also = f"; rlfw with network.precision=fp32 {fp32[0]:.0f}: ratio {fp32[0] / theirs:.2f}" if fp32 else ""
        if layout:
            also += (
                f"; SB3 with 4 envs, an update every vector step {layout[0]:.0f}: rlfw / that {ours / layout[0]:.2f}"
            )
        print(f"{what}: rlfw {ours:.0f} vs SB3 {theirs:.0f} steps/s: ratio {ours / theirs:.2f}{also}", flush=True)
        ours_in = {"auto" if bf16 else "fp32": ours, **({"fp32": fp32[0]} if fp32 else {})}  # by precision
        for p, f in zip(precisions if floors else [], measured[len(sides) + len(peers) :], strict=True):
            print_floor(run, p, f, theirs, ours_in[p])
        print(flush=True)
    if "floor" in args.parts:  # the floors of the runs not measured above, alone
        alone = [] if "ppo" in args.parts else [["ppo"]]
        alone += [] if "dqn" in args.parts else [["dqn", e] for e in args.epsilons]
        for run in alone:
            at = f" at epsilon {run[1]}" if run[1:] else ""
            print(
                f"{run[0].upper()}'s floor on Pong{at}: env steps/s with no overhead at all (median of 5 rounds; repeats: {r}):"
            )
            for p, f in zip(precisions, medians_of(floor_runs(run, precisions), r), strict=True):
                print_floor(run, p, f)
            print(flush=True)
    if "memory" in args.parts:
        ours, theirs = child("rlfw_memory"), child("sb3_memory")
        per = ours["rss_bytes"] / CAPACITY
        sb3 = f"SB3's ReplayBuffer asks for {theirs['allocated_bytes'] / 2**30:.1f} GiB (obs and next_obs)"
        if "error" in theirs:
            sb3 += f" and cannot be made on this machine ({theirs['error']})"
        print(
            f"replay of {CAPACITY:,} Pong transitions: rlfw resident {ours['rss_bytes'] / 2**30:.2f} GiB ({per:,.0f} bytes a"
            f" transition, {ours['transitions']:,} sampleable); {sb3}; ratio {ours['rss_bytes'] / theirs['allocated_bytes']:.2f}"
        )


if __name__ == "__main__":
    main()
