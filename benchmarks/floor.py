"""The floor: the env steps/s a tuned config's network, optimizer and envs allow with no overhead.

PPO's: benchmarks/atari.py (Pong), benchmarks/breakout_minatar.py and benchmarks/mujoco.py measure it
(pixels as uint8, vectors as rlfw.testing's values). Per rollout of ``num_steps x num_envs`` env
steps, PPO needs ``epochs x minibatches`` gradient steps, ``num_steps``
acting forwards at batch ``num_envs`` and ``num_steps`` steps of the envs. Each is timed alone on
rlfw's real network, loss, optimizer (fused Adam) and envs (medians of 5 rounds); the floor is the
rollout's env steps over their sum. The gradient step is the real PPO loss on a random minibatch,
backward, the config's gradient clipping and the optimizer step (a stand-in loss of two terms, used
until 2026-11-26, cost 1.7-1.9 ms less a step on MinAtar's small network: with PPO's terms a step runs
110 top-level ops forward and backward, against the stand-in's 41, and on that network they are not
little). No framework reaches it: a real run also stores steps, computes GAE, gathers minibatches,
logs and checks, and its envs and network take turns on the same cores.

SAC's (benchmarks/mujoco.py) counts, per env step once it learns, one acting forward, one env step
and its updates (SAC's loss, backward, clipping, Adam, the target rule). DQN's floor
(benchmarks/atari.py) is the same idea at a fixed epsilon: per ``collect_steps x num_envs`` env steps,
``updates`` updates of the real DQN loss (online and target forwards, backward, clip, fused Adam),
``collect_steps`` acting forwards for the share ``1 - epsilon`` of vector steps that read the network,
and ``collect_steps`` env steps.

Each floor also comes "in turns": the same calls in the order a loop makes them, and nothing else. A
loop acts on the observation the env step just returned, so acting and the env step alternate (and
DQN updates between them), and a forward timed alone in a hot loop skips what it costs after the envs
ran: on a 2-core AMD EPYC with torch held to AVX2, PPO's batch-8 Pong forward took 2.8-3.2 ms alone,
4.2-5.7 ms right after an env step and 4.1-4.6 ms after 3 ms of sleep (docs/results.md, "Atari"). The
floor in turns is what a loop with no overhead at all reaches; the parts-alone floor is above it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def medians(*parts: tuple[Callable[[], None], int]) -> list[float]:
    """Seconds per call of each ``(f, n)``: ``n`` calls after one to warm up, medians of 5 rounds."""

    def timed(f: Callable[[], None], n: int) -> float:
        f()
        started = time.perf_counter()
        for _ in range(n):
            f()
        return (time.perf_counter() - started) / n

    rounds = [[timed(f, n) for f, n in parts] for _ in range(5)]
    return [statistics.median(r[i] for r in rounds) for i in range(len(parts))]


def described(algo: str, f: dict, digits: int) -> tuple[str, str]:
    """A floor's parts in words, as the benchmarks print them: timed alone, and in turns (``f`` from
    ``ppo_floor``, ``sac_floor`` or ``dqn_floor``, times in ms to ``digits`` decimals)."""
    n = f["num_envs"]

    def ms(key: str) -> str:
        return f"{f[key]:.{digits}f} ms"

    learn = f"a gradient step {ms('gradient_ms')}" if algo == "ppo" else f"an update {ms('update_ms')}"
    turn = "acting then a step of the envs" if algo == "ppo" else "a cycle of acting, a step of the envs and an update"
    alone = (
        f"{learn} at batch {f['batch_size']}, acting at batch {n} {ms('act_ms')}, a step of the {n} envs {ms('env_ms')}"
    )
    return alone, f"{turn} {ms('in_turns_ms')}"


def built(algo: str, *overrides: str) -> tuple:
    """``python -m rlfw algo=<algo> <overrides>``'s config, parts, training envs (reset) and
    optimizer, in a process set up as a run sets it up (threads, allocator)."""
    import torch

    from rlfw.config.build import build_parts
    from rlfw.config.preflight import composed
    from rlfw.machine import cores

    cfg = composed(f"algo={algo}", *overrides)
    parts = build_parts(cfg)
    torch.set_num_threads(cfg["threads"] or cores())
    envs = parts.env.make(cfg["num_envs"])
    envs.reset(seed=0)
    return cfg, parts, envs, parts.optim.build(parts.net, parts.loss)


def ppo_floor(*overrides: str) -> dict:
    """The floor of ``python -m rlfw algo=ppo <overrides>``: steps_per_s, and each part's time (ms)."""
    import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

    # isort: split
    import numpy as np
    import torch

    from rlfw.batch import Batch
    from rlfw.testing import field

    cfg, parts, envs, optimizer = built("ppo", *overrides)
    envs_n, steps, replay = cfg["num_envs"], cfg["replay"]["num_steps"], cfg["replay"]
    batch_size, gradient_steps = envs_n * steps // replay["minibatches"], replay["epochs"] * replay["minibatches"]
    net, loss, clip, spec = parts.net, parts.loss, cfg["trainer"]["gradient_clip_val"], parts.env.spec
    rng = np.random.default_rng(0)
    # the loss's fields as rlfw.testing makes them (their values do not change its cost); pixels as uint8
    batch = Batch({f: field(f, batch_size, spec) for f in loss.needs_batch})
    acting = field("obs", envs_n, spec)
    if envs.single_observation_space.dtype == np.uint8:
        batch["obs"], acting = (
            torch.from_numpy(rng.integers(0, 256, (n, *spec.obs_shape), dtype=np.uint8)) for n in (batch_size, envs_n)
        )
    envs.action_space.seed(0)

    def gradient_step() -> None:
        sum(v for k, v in loss(batch, net, None).items() if k.startswith("loss_")).backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        optimizer.step()
        optimizer.zero_grad()

    def act() -> None:
        with torch.no_grad():
            net.distribution(net.for_acting(acting)).sample()  # what acting reads (an own-trunk critic: not V)

    def env_step() -> None:
        envs.step(envs.action_space.sample())

    def collect_step() -> None:  # the order of a loop's collection: act on the last step's obs, then step
        act()
        env_step()

    g, a, e, t = medians((gradient_step, gradient_steps), (act, steps), (env_step, steps), (collect_step, steps))
    return {
        "steps_per_s": envs_n * steps / (gradient_steps * g + steps * (a + e)),
        "steps_per_s_in_turns": envs_n * steps / (gradient_steps * g + steps * t),
        "gradient_ms": g * 1e3,
        "act_ms": a * 1e3,
        "env_ms": e * 1e3,
        "in_turns_ms": t * 1e3,
        "batch_size": batch_size,
        "num_envs": envs_n,
    }


def sac_floor(*overrides: str) -> dict:
    """The floor of ``python -m rlfw algo=sac <overrides>`` once it learns: per env step, one act, one env step
    and ``replay.updates / replay.collect_steps`` updates (SAC's loss, backward, clip, Adam, the target
    rule); steps_per_s and each part's time (ms)."""
    import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

    # isort: split
    import torch

    from rlfw.batch import Batch
    from rlfw.testing import field

    cfg, parts, envs, optimizer = built("sac", *overrides)
    envs_n, replay, spec = cfg["num_envs"], cfg["replay"], parts.env.spec
    net, target, loss, clip = parts.net, parts.target_net, parts.loss, cfg["trainer"]["gradient_clip_val"]
    batch = Batch({f: field(f, replay["batch_size"], spec) for f in loss.needs_batch})
    acting = field("obs", envs_n, spec)
    envs.action_space.seed(0)
    updates = 0

    def update() -> None:
        nonlocal updates
        sum(v for k, v in loss(batch, net, target).items() if k.startswith("loss_")).backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        optimizer.step()
        optimizer.zero_grad()
        updates += 1
        parts.target.step(net, target, updates)

    def act() -> None:
        with torch.no_grad():
            net.distribution(net.for_acting(acting)).rsample_with_log_prob()

    def env_step() -> None:
        envs.step(envs.action_space.sample())

    steps, updates_each = replay["collect_steps"], replay["updates"]

    def cycle() -> None:  # the order of a loop: act, step the envs, then the update phase
        for _ in range(steps):
            act()
            env_step()
        for _ in range(updates_each):
            update()

    u, a, e, c = medians((update, 100), (act, 400), (env_step, 400), (cycle, 100))
    return {
        "steps_per_s": envs_n * steps / (updates_each * u + steps * (a + e)),
        "steps_per_s_in_turns": envs_n * steps / c,
        "update_ms": u * 1e3,
        "act_ms": a * 1e3,
        "env_ms": e * 1e3,
        "in_turns_ms": c * 1e3,
        "batch_size": replay["batch_size"],
        "num_envs": envs_n,
    }


def dqn_floor(epsilon: float, *overrides: str) -> dict:
    """The floor of ``python -m rlfw algo=dqn <overrides>`` acting at a fixed ``epsilon``: steps_per_s,
    and each part's time (ms)."""
    import rlfw  # noqa: F401  (first, as `python -m rlfw` does: it sets GOMP_SPINCOUNT before torch loads)

    # isort: split
    import numpy as np
    import torch

    from rlfw.batch import Batch

    cfg, parts, envs, optimizer = built("dqn", *overrides)
    envs_n, replay = cfg["num_envs"], cfg["replay"]
    net, target, loss = parts.net, parts.target_net, parts.loss
    rng = np.random.default_rng(0)
    shape, actions, n = parts.env.spec.obs_shape, envs.single_action_space.n, replay["batch_size"]
    frames = torch.from_numpy(rng.integers(0, 256, (n + 1, *shape), dtype=np.uint8))
    batch = Batch(
        obs=frames[:-1],
        action=torch.from_numpy(rng.integers(actions, size=n)),
        reward=torch.ones(n),
        next_obs=frames[1:],
        terminated=torch.zeros(n, dtype=torch.bool),
        discount=torch.full((n,), cfg["gamma"]),
    )
    acting = frames[:envs_n]
    clip = cfg["trainer"]["gradient_clip_val"]

    def update() -> None:
        loss(batch, net, target)["loss_td"].backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
        optimizer.step()
        optimizer.zero_grad()

    def act() -> None:
        with torch.no_grad():
            net(acting)["q"].argmax(1)

    def env_step() -> None:
        envs.step(rng.integers(actions, size=envs_n))

    steps, updates = replay["collect_steps"], replay["updates"]
    reads = 1 - epsilon**envs_n  # vector steps where some env acts greedily: the forward runs

    def cycle() -> None:  # the order of a loop: act (where some env reads the network), step, then update
        for _ in range(steps):
            if rng.random() < reads:
                act()
            env_step()
        for _ in range(updates):
            update()

    u, a, e, c = medians((update, 50), (act, 4 * steps), (env_step, 4 * steps), (cycle, 50))
    return {
        "steps_per_s": envs_n * steps / (updates * u + steps * (reads * a + e)),
        "steps_per_s_in_turns": envs_n * steps / c,
        "update_ms": u * 1e3,
        "act_ms": a * 1e3,
        "env_ms": e * 1e3,
        "in_turns_ms": c * 1e3,
        "batch_size": n,
        "num_envs": envs_n,
    }
