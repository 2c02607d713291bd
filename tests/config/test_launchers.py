"""Launchers and sweepers from extras: a hint to install a missing one, joblib and Ray workers that
share the cores, the sbatch script of a Slurm sweep, an Optuna search."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from omegaconf import OmegaConf

from rlfw.config.launchers import install_hint, require_slurm, split_cores, workers
from rlfw.errors import ConfigError
from rlfw.machine import cores
from tests.helpers import config, run_cli, run_in_process

CORES = cores()
JOBLIB = "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher"


def hydra_node(target: str, n_jobs: int | None = None) -> OmegaConf:
    return OmegaConf.create({"launcher": {"_target_": target, "n_jobs": n_jobs}})


def test_workers_count_like_joblib_and_ray():
    assert workers(hydra_node(JOBLIB, -1)) == CORES and workers(hydra_node(JOBLIB, None)) == CORES
    assert workers(hydra_node(JOBLIB, 1)) == 1
    assert workers(hydra_node("hydra._internal.core_plugins.basic_launcher.BasicLauncher")) == 1
    ray = {
        "_target_": "hydra_plugins.hydra_ray_launcher.ray_launcher.RayLauncher",
        "ray": {"init": {"address": None}, "remote": {}},
    }
    assert workers(OmegaConf.create({"launcher": ray})) == CORES  # one CPU a task
    ray["ray"]["remote"]["num_cpus"] = 2
    assert workers(OmegaConf.create({"launcher": ray})) == max(1, CORES // 2)
    ray["ray"]["init"]["address"] = "auto"  # a cluster: its machines, not this one's cores
    assert workers(OmegaConf.create({"launcher": ray})) == 1


def test_each_worker_gets_its_share_of_the_cores():
    cfg = split_cores(config("algo=dqn", "env=pong"), CORES)  # Atari: threads and env.threads null, every core
    assert cfg["threads"] == 1 and cfg["env"]["threads"] == 1
    assert split_cores(config("threads=null"), 1)["threads"] is None  # one job: untouched
    with pytest.raises(
        ConfigError, match=rf"^threads=2: {CORES} processes x 2 threads exceed this machine's {CORES} cores"
    ):
        split_cores({**config(), "threads": 2}, CORES)
    with pytest.raises(ConfigError, match=r"more than this machine's"):
        split_cores(config(), CORES + 1)


def test_a_missing_plugin_names_its_extra():
    assert install_hint("hydra/launcher", "submitit_slurm") == "; it comes with an extra: pip install 'rlfw[slurm]'"
    assert install_hint("hydra/sweeper", "optuna").endswith("'rlfw[optuna]'") and install_hint("env", "pong") == ""


def test_a_plugin_another_option_picks_is_named_by_what_the_user_typed(monkeypatch):
    """Without the optuna extra, search=ppo_cartpole fails on the sweeper its yaml picks: the line names
    the override the user typed, not only a sweeper they never chose."""
    from hydra.errors import MissingConfigException

    from rlfw.config.report import one_line

    monkeypatch.setattr("sys.argv", ["rlfw", "-m", "search=ppo_cartpole"])
    err = MissingConfigException("missing", missing_cfg_file="hydra/sweeper/rlfw_optuna", options=["basic"])
    assert one_line(err) == (
        "search=ppo_cartpole needs hydra/sweeper=rlfw_optuna; it comes with an extra: pip install 'rlfw[optuna]'"
    )
    monkeypatch.setattr("sys.argv", ["rlfw", "-m", "hydra/sweeper=rlfw_optuna"])
    assert one_line(err).startswith("hydra/sweeper=rlfw_optuna: no such option; valid: basic;")


def test_a_joblib_sweep_runs_its_jobs_side_by_side_on_a_share_of_the_cores(tmp_path):
    result = run_cli(
        "-m",
        "hydra/launcher=joblib",
        "threads=null",
        "seed=0,1",
        "total_env_steps=512",
        "eval.every=512",
        f"hydra.sweep.dir={tmp_path}",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "Joblib.Parallel(n_jobs=-1" in result.stdout + result.stderr
    resolved = sorted(tmp_path.glob("*_seed=*/resolved.yaml"))
    assert len(resolved) == 2 and all(f"threads: {max(1, CORES // 2)}\n" in p.read_text() for p in resolved)
    assert (tmp_path / "summary.md").exists()


def test_a_slurm_sweep_writes_the_sbatch_script_it_would_submit(tmp_path):
    """No Slurm here: a stand-in ``sbatch`` keeps the script it is handed and refuses it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text(
        '#!/bin/sh\ncp "$1" "$SBATCH_COPY"\necho "sbatch: error: no Slurm here" >&2\nexit 1\n'
    )
    (bin_dir / "srun").write_text("#!/bin/sh\nexit 1\n")  # submitit looks for srun before it submits
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    env = os.environ | {"PATH": f"{bin_dir}:{os.environ['PATH']}", "SBATCH_COPY": str(tmp_path / "job.sbatch")}
    result = run_cli(
        "-m",
        "hydra/launcher=submitit_slurm",
        "hydra.launcher.partition=cpu",
        "hydra.launcher.cpus_per_task=2",
        "hydra.launcher.timeout_min=30",
        "algo=ppo,dqn",
        "seed=0,1",
        f"hydra.sweep.dir={tmp_path / 'sweep'}",
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode != 0 and "sbatch: error: no Slurm here" in result.stderr
    script = (tmp_path / "job.sbatch").read_text()
    for line in (
        "#SBATCH --array=0-3%4",
        "#SBATCH --partition=cpu",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --time=30",
        "#SBATCH --signal=USR2@120",
        f"#SBATCH --output={tmp_path / 'sweep'}/.submitit/",
    ):
        assert line in script, script
    assert script.rstrip().splitlines()[-1].startswith("srun ") and "-m submitit.core._submit" in script


def test_an_optuna_search_maximises_the_final_eval_return(tmp_path, capsys):
    code, _, err = run_in_process(
        [
            "-m",
            "search=ppo_cartpole",
            "hydra.sweeper.n_trials=3",
            "total_env_steps=1024",
            "eval.every=1024",
            f"hydra.sweep.dir={tmp_path}",
        ],
        capsys,
    )
    assert code == 0, err
    finals = [json.loads(p.read_text())["eval_return_mean"] for p in tmp_path.glob("trial_*/seed_0/summary.json")]
    best = yaml.safe_load((tmp_path / "optimization_results.yaml").read_text())
    assert (
        len(finals) == 3
        and best["best_value"] == max(finals)
        and set(best["best_params"]) >= {"optim.lr", "replay.epochs"}
    )


def test_an_optuna_search_can_maximise_the_mean_over_a_runs_evals(tmp_path, capsys):
    code, _, err = run_in_process(
        [
            "-m",
            "search=dqn_cartpole",
            "hydra.sweeper.n_trials=2",
            "hydra.sweeper.seeds=1",
            "total_env_steps=1024",
            "eval.every=512",
            f"hydra.sweep.dir={tmp_path}",
        ],
        capsys,
    )
    assert code == 0, err
    summaries = [json.loads(p.read_text()) for p in tmp_path.glob("trial_*/seed_0/summary.json")]
    means = [s["mean_eval_return"] for s in summaries]
    assert all(
        m == sum(e["return_mean"] for e in s["evals"]) / 2 for m, s in zip(means, summaries, strict=True)
    )  # evals at 512 and 1024
    best = yaml.safe_load((tmp_path / "optimization_results.yaml").read_text())
    assert (
        len(means) == 2 and best["best_value"] == max(means) and set(best["best_params"]) >= {"optim.lr", "target.tau"}
    )
    assert [s["seed"] for s in summaries] == [0, 0]  # every trial on the same seeds: hydra.sweeper.seeds=1


def ray_sweep(tmp_path, env: dict, *overrides: str):
    """Two seeds through Hydra's Ray launcher, into ``tmp_path/sweep``."""
    return run_cli(
        "-m",
        "hydra/launcher=ray",
        "seed=0,1",
        *overrides,
        f"hydra.sweep.dir={tmp_path / 'sweep'}",
        cwd=tmp_path,
        env=env,
    )


def test_a_ray_sweep_runs_on_both_nodes_of_a_two_node_ray_cluster(tmp_path):
    """A Ray cluster of two nodes (two raylets on this machine, one CPU each, as `ray start` makes them
    on two machines); the sweep joins it with `hydra.launcher.ray.init.address`, and each node runs a job."""
    ray = [str(Path(sys.executable).with_name("ray"))]
    env = os.environ | {"HOME": str(tmp_path / "home"), "RAY_USAGE_STATS_ENABLED": "0"}
    port, dashboard = free_port(), free_port()
    head = [*ray, "start", "--head", f"--port={port}", f"--dashboard-port={dashboard}", "--num-cpus=1"]
    try:
        for command in (head, [*ray, "start", f"--address=127.0.0.1:{port}", "--num-cpus=1"]):
            started = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
            assert started.returncode == 0, started.stderr[-2000:]
        address = f"hydra.launcher.ray.init.address=127.0.0.1:{port}"
        result = ray_sweep(tmp_path, env, address, "total_env_steps=2048", "eval.every=2048")
        assert result.returncode == 0, result.stderr[-3000:]
        assert "| all runs | 2 |" in (tmp_path / "sweep" / "summary.md").read_text()
        nodes = subprocess.run(
            [sys.executable, "-c", NODES_OF_JOBS, f"http://127.0.0.1:{dashboard}"],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert nodes.returncode == 0, nodes.stderr[-2000:]
        assert len(set(nodes.stdout.split())) == 2  # one job on each node
    finally:
        subprocess.run([*ray, "stop", "--force"], capture_output=True, env=env, timeout=120)


NODES_OF_JOBS = """import sys
from ray.util.state import list_tasks
print(*[t.node_id for t in list_tasks(address=sys.argv[1], filters=[("name", "=", "_run_job")])])"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_slurm_launcher_without_slurm_is_refused_in_one_line_naming_the_local_one(monkeypatch):
    slurm = OmegaConf.create(
        {"launcher": {"_target_": "hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher"}}
    )
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(ConfigError, match=r"sbatch is not on this machine's PATH.*hydra/launcher=submitit_local"):
        require_slurm(slurm)
    monkeypatch.setattr("shutil.which", lambda name: f"/usr/bin/{name}")
    require_slurm(slurm)  # a login node: on to submitit


def test_an_optuna_grid_runs_each_point_once_into_one_study(tmp_path, capsys):
    import optuna

    grid = ["hydra/sweeper=rlfw_optuna", "hydra/sweeper/sampler=grid", "optim.lr=choice(0.001,0.002)"]
    args = ["-m", *grid, "hydra.sweeper.n_trials=10", "total_env_steps=512", "replay.num_steps=64", "eval.every=512"]
    code, _, err = run_in_process([*args, f"hydra.sweep.dir={tmp_path}"], capsys)
    assert code == 0, err[-2000:]
    (summary,) = optuna.get_all_study_summaries(f"sqlite:///{tmp_path / 'optuna.db'}")  # a study without a name: one
    study = optuna.load_study(study_name=summary.study_name, storage=f"sqlite:///{tmp_path / 'optuna.db'}")
    assert sorted(t.params["optim.lr"] for t in study.trials) == [0.001, 0.002]  # n_trials capped at the grid's 2
    assert {t.state.name for t in study.trials} == {"COMPLETE"}
