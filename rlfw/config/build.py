"""Build every part of a run from a checked config (``rlfw.config.check.check_config``).

The constructors check what depends on several values, the env or the machine's memory; like the
config checks, this runs before anything is written (``rlfw.config.preflight``).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from rlfw.config.algos import algos_acting_in
from rlfw.config.fit import check_acting, check_dataset_env
from rlfw.config.schedule import Schedule, build_schedule
from rlfw.dataset.read import Transitions, as_packed, fits, read
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError, require
from rlfw.explore.contract import ExploreRule
from rlfw.loss.contract import LossHead
from rlfw.machine import cores, keep_freed_memory, require_memory
from rlfw.network import build_network
from rlfw.network.head.contract import NetworkHead
from rlfw.network.precision import precision_of
from rlfw.registry import build, lookup
from rlfw.replay.contract import Replay
from rlfw.target.contract import TargetRule


@dataclass
class Parts:
    env: Any  # the env option: .spec and .make(num_envs)
    net: NetworkHead
    target_net: NetworkHead | None
    explore: ExploreRule
    replay: Replay
    target: TargetRule
    loss: LossHead
    optim: Any
    schedule: Schedule  # the values that change by env step as the run trains (``schedule:``)


def build_parts(cfg: dict[str, Any]) -> Parts:
    """``cfg`` is the checked config as plain containers.

    Seeds torch, numpy's and Python's global generators (an env that draws from them, as sb3-contrib's
    test envs do, repeats too) and sets torch's threads first: with the same ``seed`` and ``threads``, a
    CPU run is reproducible from its initial weights on (envs are seeded from ``seed`` too, in
    ``rlfw.run.stream``), from the command line or from Python. Then has the process keep freed
    memory for reuse (``rlfw.machine.keep_freed_memory``).
    """
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    random.seed(cfg["seed"])
    # The run's thread count from here on: orthogonal initialisation (a QR decomposition) gives
    # slightly different weights with another count, so a run must not depend on the caller's.
    torch.set_num_threads(cfg["threads"] or cores())
    keep_freed_memory()
    env = build("env", cfg["env"], "env")
    video = cfg["eval"]["video"]
    require(not video or env.renders, "eval.video", video, f"env={cfg['env']['name']} cannot render frames")
    data = _dataset(cfg, env.spec)  # first: a dataset of another env says which env to give
    _require_action_space(cfg, env.spec)
    _require_network_memory(cfg, env.spec)
    net = build_network(cfg["network"], env.spec)
    explore = build("explore", cfg["explore"], "explore", spec=env.spec)
    loss = build("loss", cfg["loss"], "loss", spec=env.spec, precision=precision_of(net))
    check_acting(cfg, env.spec)
    target = build("target", cfg["target"], "target")
    run = {
        "spec": env.spec,
        "num_envs": cfg["num_envs"] * env.spec.rows_per_copy,  # the vector env's rows
        "gamma": float(cfg["gamma"]),
        "total_env_steps": cfg["total_env_steps"],
        "data": data,  # a dataset to learn from, or None
    }
    replay = build("replay", cfg["replay"], "replay", **run)
    optim = build("optim", cfg["optim"], "optim")
    optim.build(net, loss)  # fails now, not at fit time, on an unknown optim.groups part
    net_parts = list(dict(net.named_children()))
    unknown = [p for p in target.parts or [] if p not in net_parts]
    require(not unknown, "target.parts", unknown, f"not parts of this network; parts: {', '.join(net_parts)}")
    target_net = None
    if target.uses_target:
        target_net = copy.deepcopy(net).requires_grad_(False)
    scheduled = {"loss": loss, "explore": explore, "target": target, "optim": optim}
    schedule = build_schedule(cfg, scheduled, {"spec": env.spec, "precision": precision_of(net)})
    return Parts(env, net, target_net, explore, replay, target, loss, optim, schedule)


def _dataset(cfg: dict[str, Any], spec: EnvSpec) -> Transitions | None:
    """The dataset ``data=`` names, played in the run's env and shaped as its observations and actions."""
    if not cfg.get("data"):
        return None
    dataset_id, data = cfg["data"]["id"], read(cfg["data"])
    check_dataset_env(dataset_id, data.env_id, spec)
    data = as_packed(dataset_id, data, spec)  # a Dict dataset's keys, as the env packs its own
    fits(dataset_id, data, spec)
    return data


def _require_action_space(cfg: dict[str, Any], spec: EnvSpec) -> None:
    """The head must act in the env's action space (else name the algos that can), and take its masks."""
    head, space = cfg["network"]["head"]["name"], type(spec.action_space).__name__
    cls = lookup("head", head)
    spaces = cls.action_spaces
    if spec.mask is not None and cls.scores is None:
        raise ConfigError(
            f"network/head={head} declares no action scores to close actions in (scores), and {spec.id}'s"
            " observations carry their open actions (env.mask=none acts without)"
        )
    if space not in spaces:
        algos = ", ".join(algos_acting_in(space, from_data=bool(cfg.get("data")))) or "none"
        raise ConfigError(
            f"network/head={head} acts in {', '.join(sorted(spaces))} action spaces, and {spec.id} has"
            f" {spec.action_space}; the algos that act in a {space} space: {algos}"
        )


def _require_network_memory(cfg: dict[str, Any], spec) -> None:
    """Sizes the network on the ``meta`` device (nothing allocated): weights, gradients, two
    optimizer moments and a target copy."""
    with torch.device("meta"):
        numel = sum(p.numel() for p in build_network(cfg["network"], spec).parameters())
    require_memory(5 * 4 * numel, "network.encoder", cfg["network"]["encoder"], f"a network of {numel:,} parameters")
