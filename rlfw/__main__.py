"""``python -m rlfw algo=ppo env=cartpole ...``: the Hydra entry point."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from rlfw.build import build_parts
from rlfw.config_path import config_dir
from rlfw.errors import ConfigError

log = logging.getLogger("rlfw")


@hydra.main(version_base="1.3", config_path=config_dir(), config_name="config")
def main(cfg: DictConfig) -> float:
    """Train one run; return the final greedy-eval return (what a sweeper optimises)."""
    hydra_cfg = HydraConfig.get()
    names = {"algo": hydra_cfg.runtime.choices.get("algo"), "env": hydra_cfg.runtime.choices.get("env")}
    resolved = OmegaConf.to_container(cfg, resolve=True)
    try:
        parts = build_parts(resolved)  # every check, before Lightning is imported or anything is written
        from rlfw.train import train  # imports Lightning (seconds)

        return train(resolved, parts, Path(hydra_cfg.runtime.output_dir), names)["eval_return_mean"]
    except ConfigError as err:  # raised before training starts (the Trainer's flags are the last check)
        print(f"rlfw: config error: {err}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
