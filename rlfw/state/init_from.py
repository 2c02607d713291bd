"""``init_from=<file.ckpt>``: a new run that starts from another run's networks and optimizer state.

The run has its own folder, config and clock (from zero); from the checkpoint it takes every network
(policy, critics, their targets, a loss's own networks and temperature), the observation normalizer's
statistics and the optimizer's moments; not the counters, the replay, the envs, the random generators
or the learning rates (this run's config sets those). It is how a run that learned from data goes on
online (``online=finetune``), as d3rlpy's ``fit_online`` and CORL's fine-tuning scripts continue
their offline agents. Every check runs before training: a missing, foreign or ill-fitting file ends in
one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlfw.errors import ConfigError
from rlfw.state.resume import read_checkpoint

# The module's parts whose state a checkpoint's ``state_dict`` holds, by their names in ``RLModule``.
PARTS = {"net": "net", "target_net": "target_net", "loss_fn": "loss"}


def shapes(parts: Any) -> dict[str, tuple[int, ...]]:
    """The shape of every tensor in the state of the run's networks (``rlfw.config.build.Parts``), by the
    name ``RLModule.state_dict`` gives it."""
    found = {}
    for name, attribute in PARTS.items():
        part = getattr(parts, attribute)
        if part is not None:
            found.update({f"{name}.{k}": tuple(v.shape) for k, v in part.state_dict().items()})
    return found


def prepare_init(cfg: dict[str, Any], parts: Any) -> dict[str, Any] | None:
    """The checkpoint ``init_from`` names, checked to fit the run's networks and optimizer; None without one."""
    given = cfg.get("init_from")
    if given is None:
        return None
    path = Path(given).expanduser()
    if not path.is_file():
        raise ConfigError(f"init_from={given!r}: no such file (a run's checkpoints/last.ckpt or best.ckpt)")
    state = read_checkpoint(path, "init_from")
    saved = {k: tuple(v.shape) for k, v in state["state_dict"].items()}
    wanted = shapes(parts)
    differ = [
        f"{k} ({'absent' if k not in saved else saved[k]} there, {'absent' if k not in wanted else wanted[k]} here)"
        for k in sorted(set(saved) | set(wanted))
        if saved.get(k) != wanted.get(k)
    ]
    if differ:
        algo = state["config"].get("loss", {}).get("name")
        raise ConfigError(
            f"init_from={given}: its networks (loss={algo}) do not fit this run's: {'; '.join(differ[:3])}"
            f"{f' and {len(differ) - 3} more' if len(differ) > 3 else ''}; start from a run of the same algo,"
            " network and env"
        )
    if state["config"]["optim"]["name"] != cfg["optim"]["name"]:
        raise ConfigError(
            f"init_from={given}: its optimizer is optim={state['config']['optim']['name']}, this run's"
            f" optim={cfg['optim']['name']}; the moments carried over are the same optimizer's"
        )
    groups = [len(g["params"]) for g in parts.optim.build(parts.net, parts.loss).param_groups]
    if groups != [len(g["params"]) for g in state["optimizer"]["param_groups"]]:
        raise ConfigError(
            f"init_from={given}: its optimizer's parameter groups differ from this run's (optim.groups); give the"
            " same optim.groups as the run it comes from"
        )
    return state


def start_from(module: Any, state: dict[str, Any]) -> None:
    """Puts the checkpoint's networks and optimizer moments into a module whose fit has started; the
    optimizer keeps this run's learning rates and other values."""
    module.load_state_dict(state["state_dict"])
    optimizer = module.trainer.optimizers[0]
    optimizer.load_state_dict(
        {"state": state["optimizer"]["state"], "param_groups": optimizer.state_dict()["param_groups"]}
    )
