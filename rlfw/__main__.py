"""``python -m rlfw algo=ppo env=cartpole ...``: the Hydra entry point."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from rlfw.config import restart
from rlfw.config.folders import register_resolvers
from rlfw.config.path import config_dir
from rlfw.config.preflight import prepare
from rlfw.config.report import CONFIG_ERRORS, fail
from rlfw.errors import EnvError, NonFiniteError, RunError, Stopped
from rlfw.plugins import search_path
from rlfw.state.lock import owned

training = False  # set once a job starts training: errors before that are the config's
interrupted: int | None = None  # the signal (Ctrl-C, SIGTERM) that reached rlfw's own handler, outside training
STOPS = (signal.SIGINT, signal.SIGTERM)


@hydra.main(version_base="1.3", config_path=config_dir(), config_name="config")
def run(cfg: DictConfig) -> float:
    """Train one job; return what a sweeper optimises: the final greedy-eval return, or with
    ``objective=mean_eval`` the mean over all the run's greedy evals. A run stopped
    by a signal ends in one line on how to resume it (exit code 128 + the signal's number), one
    stopped by a non-finite value, a checkpoint the disk cannot hold or a lost ddp rank in one line
    naming it (exit code 1)."""
    global training
    training = False  # a sweep's next job: its config errors are again the config's
    hydra_cfg = HydraConfig.get()
    folder = Path(hydra_cfg.runtime.output_dir)
    with owned(folder, "hydra.run.dir"):  # a sweep's job takes its folder here; a single run has it already
        job = prepare(cfg, hydra_cfg)  # checked once already, before Hydra created the run folder
        from rlfw.run.stopping import pass_on
        from rlfw.run.train import train  # imports Lightning (seconds)

        training = True
        try:
            summary = train(job, folder)
        except Stopped as stop:  # exits here, not through Hydra, which would add a line of its own
            print(f"rlfw: {stop}", file=sys.stderr)
            if signal.getsignal(stop.signum) is interrupt:  # rlfw's own, below: answered already
                signal.signal(stop.signum, signal.SIG_DFL)
            pass_on(stop.signum)
            sys.exit(stop.code)
        except (EnvError, NonFiniteError, RunError) as err:
            print(f"rlfw: {err}", file=sys.stderr)
            sys.exit(1)
    return summary["eval_return_mean" if cfg.objective == "final_eval" else "mean_eval_return"]


def main() -> None:
    """Every config error, found by rlfw, Hydra or OmegaConf, ends in one line and exit code 2
    (``rlfw.config.report``); an error once training has started keeps its traceback. Ctrl-C or SIGTERM
    outside training (between a sweep's jobs, as one starts; during training a run stops with a
    checkpoint) ends in one line with the command that goes on, exit code 128 + the signal's number,
    whatever the interrupted library code raised."""
    global training, interrupted
    training, interrupted = False, None
    restart.goes_on = None  # set once this command's run or sweep folder is known
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra re-raises instead of printing; we print one line
    defaults: dict[int, Any] = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    for signum in STOPS:
        if signal.getsignal(signum) is defaults[signum]:  # not where it is ignored or someone else's
            signal.signal(signum, interrupt)
    register_resolvers()
    search_path.install()
    try:
        run()
        if interrupted is not None:  # the handler ran, but library code swallowed its KeyboardInterrupt
            raise KeyboardInterrupt
    except BaseException as err:
        if interrupted is not None:  # a KeyboardInterrupt, or what a library made of one raised mid-update
            how = f"; to go on (from the last checkpoints written): {restart.goes_on}" if restart.goes_on else ""
            what = "interrupted" if interrupted == signal.SIGINT else f"stopped by {signal.Signals(interrupted).name}"
            print(f"rlfw: {what}{how}", file=sys.stderr)
            sys.exit(128 + interrupted)
        if isinstance(err, CONFIG_ERRORS) and not training:
            fail(err)
        raise
    finally:
        for signum in STOPS:
            if signal.getsignal(signum) is interrupt:
                signal.signal(signum, defaults[signum])


def interrupt(signum: int, frame) -> None:
    global interrupted
    interrupted = signum
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
