"""``python -m rlfw algo=ppo env=cartpole ...``: the Hydra entry point."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from rlfw.config.folders import register_resolvers
from rlfw.config.path import config_dir
from rlfw.config.preflight import prepare
from rlfw.config.report import CONFIG_ERRORS, fail
from rlfw.errors import NonFiniteError, Stopped
from rlfw.plugins import search_path

training = False  # set once a job starts training: errors before that are the config's


@hydra.main(version_base="1.3", config_path=config_dir(), config_name="config")
def run(cfg: DictConfig) -> float:
    """Train one job; return what a sweeper optimises: the final greedy-eval return, or with
    ``objective=mean_eval`` the mean over all the run's greedy evals. A run stopped
    by a signal ends in one line on how to resume it (exit code 128 + the signal's number), one
    stopped by a non-finite value in one line naming it (exit code 1)."""
    global training
    hydra_cfg = HydraConfig.get()
    job = prepare(cfg, hydra_cfg)  # checked once already, before Hydra created the run folder
    from rlfw.run.train import train  # imports Lightning (seconds)

    training = True
    try:
        summary = train(job, Path(hydra_cfg.runtime.output_dir))
        return summary["eval_return_mean" if cfg.objective == "final_eval" else "mean_eval_return"]
    except Stopped as stop:  # exits here, not through Hydra, which would add a line of its own
        print(f"rlfw: {stop}", file=sys.stderr)
        sys.exit(stop.code)
    except NonFiniteError as err:
        print(f"rlfw: {err}", file=sys.stderr)
        sys.exit(1)


def main() -> None:
    """Every config error, found by rlfw, Hydra or OmegaConf, ends in one line and exit code 2
    (``rlfw.config.report``); an error once training has started keeps its traceback."""
    global training
    training = False
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra re-raises instead of printing; we print one line
    register_resolvers()
    search_path.install()
    try:
        run()
    except CONFIG_ERRORS as err:
        if training:
            raise
        fail(err)


if __name__ == "__main__":
    main()
