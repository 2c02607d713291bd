"""Launchers from extras: a hint to install a missing one, and joblib workers that share the cores."""

import os

import pytest
from omegaconf import OmegaConf

from rlfw.errors import ConfigError
from rlfw.launchers import install_hint, split_cores, workers
from tests.helpers import config, run_cli

CORES = os.cpu_count()
JOBLIB = "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher"


def hydra_node(target: str, n_jobs: int | None = None) -> OmegaConf:
    return OmegaConf.create({"launcher": {"_target_": target, "n_jobs": n_jobs}})


def test_joblib_workers_count_like_joblib():
    assert workers(hydra_node(JOBLIB, -1)) == CORES and workers(hydra_node(JOBLIB, None)) == CORES
    assert workers(hydra_node(JOBLIB, 1)) == 1
    assert workers(hydra_node("hydra._internal.core_plugins.basic_launcher.BasicLauncher")) == 1


def test_each_worker_gets_its_share_of_the_cores():
    cfg = split_cores(config("algo=dqn", "env=pong"), CORES)  # Atari: threads and env.threads null, every core
    assert cfg["threads"] == 1 and cfg["env"]["threads"] == 1
    assert split_cores(config("threads=null"), 1)["threads"] is None  # one job: untouched
    with pytest.raises(ConfigError, match=rf"^threads=2: {CORES} joblib workers x 2 threads exceed this machine's {CORES} cores"):
        split_cores({**config(), "threads": 2}, CORES)
    with pytest.raises(ConfigError, match=r"more workers than this machine's"):
        split_cores(config(), CORES + 1)


def test_a_missing_plugin_names_its_extra():
    assert install_hint("hydra/launcher", "submitit_slurm") == "; it comes with an extra: pip install 'rlfw[slurm]'"
    assert install_hint("hydra/sweeper", "optuna").endswith("'rlfw[optuna]'") and install_hint("env", "pong") == ""


def test_a_joblib_sweep_runs_its_jobs_side_by_side_on_a_share_of_the_cores(tmp_path):
    result = run_cli(
        "-m", "hydra/launcher=joblib", "threads=null", "seed=0,1", "total_env_steps=512", "eval.every=512",
        f"hydra.sweep.dir={tmp_path}", cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "Joblib.Parallel(n_jobs=-1" in result.stdout + result.stderr
    resolved = sorted(tmp_path.glob("*_seed=*/resolved.yaml"))
    assert len(resolved) == 2 and all(f"threads: {max(1, CORES // 2)}\n" in p.read_text() for p in resolved)
    assert (tmp_path / "summary.md").exists()
