"""Statistics over a variant's runs: rliable's IQM and stratified-bootstrap confidence intervals
(Agarwal et al. 2021, "Deep RL at the edge of the statistical precipice"), and time to solve."""

from __future__ import annotations

import logging
import math
import statistics
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from rlfw.compare.runs import Run

REPS = 2000  # bootstrap resamples
CONFIDENCE = 0.95


def estimate(
    scores: np.ndarray, aggregate: Callable[[np.ndarray], np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """rliable's point estimate and 95% stratified-bootstrap interval of ``aggregate`` over
    ``scores`` ([runs, tasks, ...]), with a fixed seed: the same runs give the same table."""
    from absl import logging as absl_logging
    from rliable import library  # arch, scipy, pandas: seconds to import

    logging.getLogger("absl").setLevel(logging.WARNING)  # rliable logs each estimate at INFO
    # absl's handler holds the sys.stderr of the moment absl was imported (under pytest, a capture
    # file) and closes it when logging is configured again (Hydra does): give it the real one.
    absl_logging.get_absl_handler().python_handler.stream = sys.__stderr__
    # absl calls logging.basicConfig() when the root logger has no handler, which would tie the
    # process's root logging to whatever sys.stderr is right now: hand it a handler for the call.
    placeholder = None if logging.root.handlers else logging.NullHandler()
    if placeholder:
        logging.root.addHandler(placeholder)
    # rliable's StratifiedBootstrap draws its resamples from numpy's global generator (np.random.choice in
    # update_indices), whatever random_state says: seeded here for the call, and put back after it
    outside = np.random.get_state()
    np.random.seed(0)
    try:
        with warnings.catch_warnings():  # arch warns that rliable hands it a RandomState
            warnings.filterwarnings("ignore", message="random_state is deprecated", category=FutureWarning)
            point, interval = library.get_interval_estimates(
                {"runs": scores},
                aggregate,
                reps=REPS,
                confidence_interval_size=CONFIDENCE,
                random_state=np.random.RandomState(0),
            )
    finally:
        np.random.set_state(outside)
        if placeholder:
            logging.root.removeHandler(placeholder)
    return point["runs"], interval["runs"][0], interval["runs"][1]


def iqm_interval(scores: list[float]) -> tuple[float, float, float]:
    """The interquartile mean of ``scores`` (one per run) and its 95% bootstrap interval."""
    from rliable import metrics

    point, low, high = estimate(
        np.asarray(scores, dtype=float)[:, None], lambda s: np.array([metrics.aggregate_iqm(s)])
    )
    return float(point[0]), float(low[0]), float(high[0])


def mean_band(curves: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``curves`` is [runs, points]: the mean over runs at each point and its 95% bootstrap band."""
    return estimate(curves[:, None, :], lambda s: s.mean(axis=(0, 1)))


def first_solved(run: Run) -> dict[str, float] | None:
    """The first evaluation whose mean return reached the env's solved return, if any."""
    bar = run.summary.get("solved_return")
    if bar is None:
        return None
    return next((e for e in run.summary["evals"] if e["return_mean"] >= bar), None)


def row(label: str, runs: list[Run], metric: str = "return_mean") -> dict[str, Any]:
    """One table row: the final evaluation's ``metric`` (mean, std, IQM with its interval; the return by
    default), the IQM of each run's best evaluation (what offline RL papers report beside the last), and
    time to solve."""
    finals = [r.summary["evals"][-1][metric] for r in runs]
    iqm, low, high = iqm_interval(finals)
    best, best_low, best_high = iqm_interval([max(e[metric] for e in r.summary["evals"]) for r in runs])
    solved = [e for e in map(first_solved, runs) if e is not None]
    median = lambda key: statistics.median(e[key] for e in solved) if solved else math.nan  # noqa: E731
    return {
        "variant": label,
        "runs": len(runs),
        "final_return_mean": float(np.mean(finals)),
        "final_return_std": float(np.std(finals)),
        "final_return_iqm": iqm,
        "iqm_ci_low": low,
        "iqm_ci_high": high,
        "best_iqm": best,
        "best_ci_low": best_low,
        "best_ci_high": best_high,
        "solved_runs": len(solved),
        "env_steps_to_solve": median("env_steps"),
        "wall_seconds_to_solve": median("wall_seconds") if all("wall_seconds" in e for e in solved) else math.nan,
    }
