"""Build every part of a run from the resolved config, and check they fit together.

All checks run here, before a Trainer exists: a bad config fails with one ``ConfigError`` line and
nothing is written.
"""

from __future__ import annotations

import copy
import importlib.util
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from rlfw.errors import ConfigError, require
from rlfw.network import build_network
from rlfw.registry import build, lookup


LOGGERS = ("csv", "tensorboard")


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


def check_run(cfg: dict[str, Any]) -> None:
    """The top-level run values."""
    for key in ("seed", "total_env_steps", "num_envs", "threads", "log_every"):
        require(isinstance(cfg[key], int) and not isinstance(cfg[key], bool), key, cfg[key], "expected an integer")
    for key in ("total_env_steps", "num_envs", "threads", "log_every"):
        require(cfg[key] >= 1, key, cfg[key], "must be >= 1")
    require(isinstance(cfg["gamma"], (int, float)) and 0 <= cfg["gamma"] <= 1, "gamma", cfg["gamma"], "a number in [0, 1]")
    ev = cfg["eval"]
    require(isinstance(ev["every"], int) and ev["every"] >= 1, "eval.every", ev["every"], "env steps between evaluations, >= 1")
    require(isinstance(ev["episodes"], int) and ev["episodes"] >= 1, "eval.episodes", ev["episodes"], "an integer >= 1")
    progress = cfg["progress_every_s"]
    require(isinstance(progress, (int, float)) and progress > 0, "progress_every_s", progress, "seconds, > 0")
    logger = cfg["logger"]["name"]
    require(logger in LOGGERS, "logger", logger, f"one of {', '.join(LOGGERS)}")
    require(
        logger != "tensorboard" or importlib.util.find_spec("tensorboard") is not None,
        "logger", logger, "needs the tensorboard package (pip install tensorboard)",
    )
    every = cfg["checkpoint_every"]
    require(every is None or (isinstance(every, int) and every >= 1), "checkpoint_every", every, "null or env steps >= 1")


def build_parts(cfg: dict[str, Any]) -> Parts:
    """``cfg`` is the whole resolved config as plain containers.

    Seeds torch first: with the same ``seed``, a CPU run is reproducible from its initial weights on
    (envs are seeded from ``seed`` too, in ``RLModule.experience``).
    """
    check_run(cfg)
    check_fit(cfg)
    torch.manual_seed(cfg["seed"])
    env = build("env", cfg["env"], "env")
    net = build_network(cfg["network"], env.spec)
    explore = build("explore", cfg["explore"], "explore")
    loss = build("loss", cfg["loss"], "loss")
    target = build("target", cfg["target"], "target")
    run = {"num_envs": cfg["num_envs"], "gamma": float(cfg["gamma"]), "total_env_steps": cfg["total_env_steps"]}
    replay = build("replay", cfg["replay"], "replay", **run)
    optim = build("optim", cfg["optim"], "optim")
    optim.build(net)  # fails now, not at fit time, on an unknown optim.groups part
    target_net = None
    if target.uses_target:
        target_net = copy.deepcopy(net).requires_grad_(False)
    return Parts(env, net, target_net, explore, replay, target, loss, optim)


def _names(keys) -> str:
    return ", ".join(sorted(keys))


def check_fit(cfg: dict[str, Any]) -> None:
    """Do the chosen options fit together? Checked on their classes, before any is built."""
    keys = {"head": "network.head", "explore": "explore", "replay": "replay", "target": "target", "loss": "loss"}
    nodes = {"head": cfg["network"]["head"], **{kind: cfg[kind] for kind in keys if kind != "head"}}
    option = {kind: lookup(kind, nodes[kind].get("name"), f"{keys[kind]}.name") for kind in keys}
    head, explore, replay, target, loss = (option[k] for k in keys)
    chosen = {kind: cls.registered_name for kind, cls in option.items()}
    for who, needs in ((f"explore={chosen['explore']}", explore.needs), (f"loss={chosen['loss']}", loss.needs)):
        if not needs <= head.outputs:
            raise ConfigError(
                f"{who}: needs network outputs {_names(needs)}; network/head={chosen['head']} gives {_names(head.outputs)}"
            )
    missing = loss.needs_batch - replay.provides
    if missing:
        raise ConfigError(
            f"loss={chosen['loss']}: needs batch fields {_names(missing)} that replay={chosen['replay']} does not provide"
            f" (it provides {_names(replay.provides)})"
        )
    missing = getattr(replay, "needs_extras", frozenset()) - explore.extras
    if missing:
        raise ConfigError(
            f"replay={chosen['replay']}: needs {_names(missing)} recorded while acting;"
            f" explore={chosen['explore']} records {_names(explore.extras) or 'nothing'} (use explore=sample)"
        )
    if loss.needs_target and not target.uses_target:
        raise ConfigError(
            f"target={chosen['target']}: loss={chosen['loss']} needs a target network; use target=hard or target=polyak"
        )
