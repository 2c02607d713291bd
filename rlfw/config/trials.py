"""An Optuna trial of several seeds (``hydra/sweeper=rlfw_optuna``): its settings, checked before the
first trial, and the objective over its seeds."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlfw.errors import ConfigError, require

AGGREGATES = ("median", "iqm", "mean")


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
