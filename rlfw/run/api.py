"""``rlfw.train``: one run from Python (a notebook, a script) with the command line's overrides.

It composes the config with Hydra's compose API, runs every check the command line runs before a
run folder exists, trains, and returns the summary (``summary.json``) with the run folder. Nothing
of Hydra's global state is left behind, so it can be called again in the same process.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig

from rlfw.config.folders import register_resolvers
from rlfw.config.path import config_dir
from rlfw.config.preflight import prepare
from rlfw.config.report import CONFIG_ERRORS, one_line
from rlfw.config.trainer import check_trainer
from rlfw.errors import ConfigError
from rlfw.plugins import search_path
from rlfw.run.train import train as train_job
from rlfw.state.lock import owned


def train(overrides: Sequence[str] = (), run_dir: str | Path | None = None) -> dict[str, Any]:
    """Train as ``python -m rlfw <overrides>`` would, into ``run_dir`` (default: Hydra's
    ``outputs/<algo>_<env>/<time>``). Returns the run's summary with ``run_dir`` added. A bad config
    raises ``rlfw.errors.ConfigError`` with the command line's one-line message, and writes nothing."""
    overrides = [*overrides, *([f"hydra.run.dir={run_dir}"] if run_dir is not None else [])]
    register_resolvers()
    search_path.install()
    try:
        with initialize_config_dir(config_dir(), version_base="1.3", job_name="rlfw"):
            config = compose("config", overrides, return_hydra_config=True)
        HydraConfig.instance().set_config(config)  # hydra.run.dir names the folder from ${hydra:...}
        folder = Path(config.hydra.run.dir)
        job = prepare(config, config.hydra)
        check_trainer(job.cfg)
    except ConfigError:
        raise
    except CONFIG_ERRORS as err:
        raise ConfigError(one_line(err)) from err
    finally:
        HydraConfig.instance().cfg = None
    with progress_lines(), owned(folder, "run_dir"):
        summary = train_job(job, folder)
    return {**summary, "run_dir": folder}


@contextmanager
def progress_lines() -> Iterator[None]:
    """rlfw's log lines (start, progress, end) on stderr while the run trains, unless the program has
    configured logging itself (the command line's Hydra does)."""
    log = logging.getLogger("rlfw")
    if logging.root.handlers or log.handlers:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[%(asctime)s][rlfw] %(message)s"))
    log.addHandler(handler)
    level, log.level = log.level, logging.INFO
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.setLevel(level)
