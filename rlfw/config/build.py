"""Build every part of a run from a checked config (``rlfw.config.check.check_config``).

The constructors check what depends on several values, the env or the machine's memory; like the
config checks, this runs before anything is written (``rlfw.config.preflight``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from rlfw.errors import require
from rlfw.machine import require_memory
from rlfw.network import build_network
from rlfw.registry import build


@dataclass
class Parts:
    env: Any  # the env option: .spec and .make(num_envs)
    net: nn.Module
    target_net: nn.Module | None
    explore: Any
    replay: Any
    target: Any
    loss: nn.Module
    optim: Any


def build_parts(cfg: dict[str, Any]) -> Parts:
    """``cfg`` is the checked config as plain containers.

    Seeds torch first: with the same ``seed``, a CPU run is reproducible from its initial weights on
    (envs are seeded from ``seed`` too, in ``RLModule.experience``).
    """
    torch.manual_seed(cfg["seed"])
    env = build("env", cfg["env"], "env")
    video = cfg["eval"]["video"]
    require(
        not video or hasattr(env, "render_env"),
        "eval.video",
        video,
        f"env={cfg['env']['name']} cannot render frames (it has no render_env)",
    )
    _require_network_memory(cfg, env.spec)
    net = build_network(cfg["network"], env.spec)
    explore = build("explore", cfg["explore"], "explore")
    loss = build("loss", cfg["loss"], "loss")
    target = build("target", cfg["target"], "target")
    run = {
        "spec": env.spec,
        "num_envs": cfg["num_envs"],
        "gamma": float(cfg["gamma"]),
        "total_env_steps": cfg["total_env_steps"],
    }
    replay = build("replay", cfg["replay"], "replay", **run)
    optim = build("optim", cfg["optim"], "optim")
    optim.build(net)  # fails now, not at fit time, on an unknown optim.groups part
    target_net = None
    if target.uses_target:
        target_net = copy.deepcopy(net).requires_grad_(False)
    return Parts(env, net, target_net, explore, replay, target, loss, optim)


def _require_network_memory(cfg: dict[str, Any], spec) -> None:
    """Sizes the network on the ``meta`` device (nothing allocated): weights, gradients, two
    optimizer moments and a target copy."""
    with torch.device("meta"):
        numel = sum(p.numel() for p in build_network(cfg["network"], spec).parameters())
    require_memory(5 * 4 * numel, "network.encoder", cfg["network"]["encoder"], f"a network of {numel:,} parameters")
