"""An Optuna trial of several seeds (``hydra/sweeper=rlfw_optuna``): its settings, checked before the
first trial, and the objective over its seeds."""

from __future__ import annotations

from dataclasses import field, make_dataclass
from typing import Any

import numpy as np
from hydra.core.config_store import ConfigStore

from rlfw.errors import ConfigError, require

AGGREGATES = ("median", "iqm", "mean")


def register_keys() -> None:
    """``hydra/sweeper/rlfw_optuna_keys``, the defaults of ``conf/hydra/sweeper/rlfw_optuna.yaml``: Hydra's
    Optuna sweeper's structured keys and a trial's four. Registered as rlfw's config is imported (here, not
    in the sweeper's module, which Hydra's plugin scan runs outside ``sys.modules``, where a dataclass cannot
    be made); without the optuna extra, not at all: the yaml then names an option whose extra is named."""
    try:
        from hydra_plugins.hydra_optuna_sweeper.config import OptunaSweeperConf
    except ImportError:
        return
    keys = make_dataclass(
        "RlfwOptunaKeys",
        [
            ("seeds", int, field(default=1)),
            ("aggregate", str, field(default="median")),
            ("prune_every", int | None, field(default=None)),
            ("pruner", Any, field(default=None)),
        ],
        bases=(OptunaSweeperConf,),
    )
    ConfigStore.instance().store(group="hydra/sweeper", name="rlfw_optuna_keys", node=keys, provider="rlfw")


register_keys()


def check_trials(node: Any) -> None:
    """``hydra.sweeper``'s seeds, aggregate, prune_every and pruner, one line each."""
    seeds, prune_every, pruner = node.seeds, node.prune_every, node.pruner
    require(seeds >= 1, "hydra.sweeper.seeds", seeds, "runs a trial trains (seeds 0 to seeds-1), >= 1")
    require(node.aggregate in AGGREGATES, "hydra.sweeper.aggregate", node.aggregate, ", ".join(AGGREGATES))
    require(prune_every is None or prune_every >= 1, "hydra.sweeper.prune_every", prune_every, "null or env steps >= 1")
    if (pruner is None) != (prune_every is None):
        raise ConfigError(
            "hydra.sweeper.pruner and hydra.sweeper.prune_every go together: the pruner reads the trial's objective"
            " every prune_every env steps (e.g. prune_every=20000 with pruner={_target_: optuna.pruners.MedianPruner})"
        )
    if pruner is not None:
        from hydra.utils import instantiate

        try:
            instantiate(pruner)
        except Exception as err:  # an unknown class or argument: the cause Hydra wraps, else its message
            cause = err.__cause__ or err
            raise ConfigError(f"hydra.sweeper.pruner: {type(cause).__name__}: {str(cause).splitlines()[0]}") from err


def aggregate(values: list[float], how: str) -> float:
    """A trial's objective over its seeds: the median, the interquartile mean (the mean of the middle
    half, as rliable's IQM) or the mean."""
    if how == "median":
        return float(np.median(values))
    if how == "iqm":
        from scipy.stats import trim_mean

        return float(trim_mean(values, 0.25))
    return float(np.mean(values))
