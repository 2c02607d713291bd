"""At the end of a multirun: one row per variant (seeds pooled), printed and written into the sweep
folder as ``summary.md`` and ``summary.csv`` (a Hydra callback named in conf/config.yaml)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

log = logging.getLogger("rlfw")


class SweepSummary(Callback):
    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from rlfw.compare.runs import find_runs, group
        from rlfw.compare.table import table, write_table
        from rlfw.config.sweep_folder import PBT_SWEEPER
        from rlfw.errors import ConfigError

        sweep = Path(config.hydra.sweep.dir)
        if config.hydra.sweeper.get("_target_") == PBT_SWEEPER:
            return  # its members change values as they train: the sweeper printed its own table (pbt.md)
        try:
            runs = find_runs([str(sweep)])
        except ConfigError:
            log.warning("sweep %s: no job finished, so no summary", sweep)
            return
        text = write_table(table(group(runs)), sweep, "summary")
        print(f"\nSweep summary ({len(runs)} runs; {sweep / 'summary.md'}, summary.csv):\n{text}", end="")
