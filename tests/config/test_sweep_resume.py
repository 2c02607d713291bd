"""A sweep that survives a cluster: rerun into its own folder with ``resume=auto``, it skips finished
jobs, resumes interrupted ones exactly and starts the rest; a rerun without ``resume``, or one that
changes the sweep, is refused before any job; an Optuna search goes on with the study it keeps in
its folder; Ctrl-C as a job starts ends in one line; a job that
submitit requeues on SIGUSR2 checkpoints and continues by itself."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import optuna
import pytest
import yaml

from rlfw.testing import run
from tests.helpers import run_cli, run_in_process, run_printed
from tests.state.test_resume import assert_same_run, wait_for_checkpoints

DQN = (
    "algo=dqn",
    "network.encoder.hidden=[64,64]",
    "total_env_steps=3000",
    "replay.learning_starts=500",
    "eval.every=1000",
    "checkpoint.every=1000",
    "stop_when_solved=false",
    "threads=1",
)


def sweep(folder: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "rlfw", "-m", *args, f"hydra.sweep.dir={folder}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )


def ctrl_c_as_in_a_terminal() -> None:
    """SIGINT at its default, as a terminal's command has it. A suite started in the background of a
    non-interactive shell (as CI may be) ignores SIGINT, its children inherit that, and rlfw leaves an
    ignored SIGINT ignored until training starts: a Ctrl-C test would then pass or fail by timing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_an_interrupted_sweep_is_finished_by_the_same_command_with_resume_auto(tmp_path):
    folder = tmp_path / "sweep"
    process = sweep(folder, *DQN, "seed=0,1,2")
    wait_for_checkpoints(process, folder / "1_seed=1", 2)  # job 0 has finished, job 1 is under way
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert (folder / "0_seed=0" / "summary.json").is_file() and not (folder / "1_seed=1" / "summary.json").exists()
    assert not (folder / "2_seed=2").exists()
    finished = (folder / "0_seed=0" / "summary.json").read_bytes()

    again = run_cli("-m", *DQN, "seed=0,1,2", f"hydra.sweep.dir={folder}")  # without resume: refused, nothing runs
    assert again.returncode == 2 and again.stderr.strip() == (
        f"rlfw: config error: hydra.sweep.dir={folder} already holds a sweep; finish it with the same command and"
        " resume=auto, or sweep into another folder"
    )
    changed = run_cli("-m", *DQN, "seed=0,1,2,3", "resume=auto", f"hydra.sweep.dir={folder}")
    assert changed.returncode == 2 and "these overrides change the sweep" in changed.stderr
    assert "seed (0,1,2 before, 0,1,2,3 now)" in changed.stderr and len(changed.stderr.strip().splitlines()) == 1
    # the rerun on another launcher: joblib's workers (each job's lines go to its own log)
    resumed = run_cli("-m", *DQN, "seed=0,1,2", "resume=auto", "hydra/launcher=joblib", f"hydra.sweep.dir={folder}")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert (folder / "0_seed=0" / "summary.json").read_bytes() == finished  # skipped, not trained again
    assert "0_seed=0: this run has finished" in (folder / "0_seed=0" / "__main__.log").read_text()
    log = (folder / "1_seed=1" / "__main__.log").read_text()
    assert re.search(r"resumed from .*1_seed=1/checkpoints/last\.ckpt at [\d,]+ env steps", log)
    log = (folder / "2_seed=2" / "__main__.log").read_text()
    assert "resume=auto: " + str(folder / "2_seed=2") + " holds no checkpoint yet" in log
    assert "Sweep summary (3 runs;" in resumed.stdout and "| all runs | 3 |" in resumed.stdout
    alone = tmp_path / "alone"
    run(alone, *DQN, "seed=1")
    assert_same_run(folder / "1_seed=1", alone)


def test_a_job_folder_deleted_mid_sweep_stops_the_sweep_in_one_line_whose_command_finishes_it(tmp_path):
    folder = tmp_path / "sweep"
    process = sweep(folder, *DQN, "seed=0,1")
    job = folder / "1_seed=1"
    wait_for_checkpoints(process, job, 1)
    while job.exists():  # the job may be writing as it goes
        shutil.rmtree(job, ignore_errors=True)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 1 and "Traceback" not in stderr, stderr[-3000:]
    line = stderr.strip().splitlines()[-1]
    assert re.fullmatch(
        # the checkpoint folder when the run's write comes while rmtree is part way through the run folder, and
        # then its last.ckpt may still be there as the line is written (the loop above deletes it after)
        rf"rlfw: the (run folder {re.escape(str(job))}|checkpoint folder {re.escape(str(job / 'checkpoints'))}) was"
        r" deleted while the run trained at [\d,]+ env steps; (no checkpoint to go on from|newest whole checkpoint:"
        r" \S+last\.ckpt); resume with: .* resume=auto hydra\.sweep\.dir=.*",
        line,
    ), line
    assert not job.exists()  # not made again by a late write
    finished = run_printed(line)
    assert finished.returncode == 0 and "Sweep summary (2 runs;" in finished.stdout, finished.stderr[-2000:]


def test_an_interrupted_optuna_search_of_two_seeds_a_trial_goes_on_with_the_study_in_its_folder(tmp_path, capsys):
    folder = tmp_path / "sweep"
    search = ("search=dqn_cartpole", *DQN[1:], "hydra.sweeper.seeds=2")  # DQN's short budget; the search picks the rest
    process = sweep(folder, *search, "hydra.sweeper.n_trials=2")
    trial = folder / "trial_1" / "seed_1"
    while not (trial / "checkpoints").is_dir():
        assert process.poll() is None, process.stderr.read()[-2000:]
        time.sleep(0.05)
    wait_for_checkpoints(process, trial, 2)  # trial 0 has finished, trial 1's second seed is under way
    process.send_signal(signal.SIGKILL)
    process.wait()
    first = folder / "trial_0" / "seed_0"
    finished = (first / "summary.json").read_bytes()

    # the same command with resume=auto, and one more trial asked for: 3 in all
    args = ["-m", *search, "hydra.sweeper.n_trials=3", "resume=auto", f"hydra.sweep.dir={folder}"]
    code, out, err = run_in_process(args, capsys)
    assert code == 0, err[-2000:]
    runs = sorted(folder.glob("trial_*/seed_*"))
    assert [f"{p.parent.name}/{p.name}" for p in runs] == [f"trial_{t}/seed_{s}" for t in range(3) for s in range(2)]
    assert (first / "summary.json").read_bytes() == finished  # not trained again
    assert re.search(r"resumed from .*/checkpoints/last\.ckpt", (trial / "__main__.log").read_text())
    study = optuna.load_study(study_name="dqn_cartpole", storage=f"sqlite:///{folder / 'optuna.db'}")
    seeds = [
        [json.loads((p / "summary.json").read_text())["mean_eval_return"] for p in runs[i : i + 2]] for i in (0, 2, 4)
    ]
    assert [t.value for t in study.trials] == [sum(s) / 2 for s in seeds]  # the median of two: their mean
    assert {t.state.name for t in study.trials} == {"COMPLETE"} and study.trials[2].params != study.trials[0].params
    best = yaml.safe_load((folder / "optimization_results.yaml").read_text())
    assert best["best_value"] == max(t.value for t in study.trials) and "Sweep summary (6 runs;" in out
    alone = tmp_path / "alone"
    overrides = yaml.safe_load((trial / ".hydra" / "overrides.yaml").read_text())
    run(alone, *(o for o in overrides if not o.startswith(("resume=", "pause_at="))))  # its seed: 1
    assert_same_run(trial, alone)


def test_the_pruner_stops_trials_at_their_pause_and_the_search_says_none_completed(tmp_path, capsys):
    """A pruner that stops every trial at its first report (a median below 10^9): each trial's seeds
    trained to the first pause only."""
    pruner = "hydra.sweeper.pruner={_target_:optuna.pruners.ThresholdPruner,lower:1.0e9}"
    args = ["-m", "search=ppo_cartpole", "total_env_steps=2048", "replay.num_steps=64", "eval.every=512", pruner]
    args += [
        "hydra.sweeper.n_trials=2",
        "hydra.sweeper.seeds=2",
        "hydra.sweeper.prune_every=512",
        f"hydra.sweep.dir={tmp_path}",
    ]
    code, out, err = run_in_process(args, capsys)
    assert code == 0 and "no trial completed (each was pruned or failed)" in out + err, err[-2000:]
    study = optuna.load_study(study_name="ppo_cartpole", storage=f"sqlite:///{tmp_path / 'optuna.db'}")
    assert [t.state.name for t in study.trials] == ["PRUNED", "PRUNED"]
    steps = [json.loads(p.read_text())["env_steps"] for p in sorted(tmp_path.glob("trial_*/seed_*/summary.json"))]
    assert steps == [512] * 4 and not (tmp_path / "optimization_results.yaml").exists()


@pytest.mark.parametrize(
    ("sweeper", "reason"),
    [
        (
            "optuna",
            "which cannot be continued: OptunaSweeper keeps its search in memory (hydra/sweeper=rlfw_optuna keeps it"
            " in the folder); sweep into another folder",
        ),
        ("rlfw_optuna", "holds a sweep without an Optuna study (optuna.db) to go on with; sweep into another folder"),
    ],
)
def test_a_sweep_whose_search_cannot_go_on_is_refused_before_any_trial(sweeper, reason, tmp_path, capsys, never_train):
    (tmp_path / "0_optim.lr=0.001" / ".hydra").mkdir(parents=True)  # a trial of a search kept in memory
    args = ["-m", "search=ppo_cartpole", f"hydra/sweeper={sweeper}", "resume=auto", f"hydra.sweep.dir={tmp_path}"]
    code, _, err = run_in_process(args, capsys)
    assert code == 2 and err.strip() == (
        f"rlfw: config error: hydra.sweep.dir={tmp_path} already holds a sweep, {reason} (the finished trials stay"
        " where they are)"
        if sweeper == "optuna"
        else f"rlfw: config error: hydra.sweep.dir={tmp_path} {reason} (the finished trials stay where they are)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", "0_optim.lr=0.001"]  # no trial ran


@pytest.mark.parametrize("signum, stopped", [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "stopped by SIGTERM")])
def test_ctrl_c_or_sigterm_as_a_sweeps_job_starts_ends_in_one_line_that_finishes_the_sweep(tmp_path, signum, stopped):
    folder = tmp_path / "sweep"
    process = sweep(folder, *DQN, "seed=0,1")
    while not (folder / ".lock").exists():  # the sweep's checks are done, its first job starts
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.005)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signum and "Traceback" not in stderr, stderr[-2000:]
    line = stderr.strip().splitlines()[-1]
    # at once: "interrupted"; from the first update on, the job stops with a checkpoint
    assert re.match(
        rf"rlfw: ({stopped}; to go on \(from the last checkpoints written\)|stopped by {signum.name} .*resume with): ",
        line,
    )
    command = shlex.split(line.split(": ", 2)[-1].split("resume with: ")[-1])
    assert command[3:] == ["-m", *DQN, "seed=0,1", "resume=auto", f"hydra.sweep.dir={folder}"]
    if signum == signal.SIGINT:  # the same command either way: run it once
        return
    finished = subprocess.run([sys.executable, *command[1:]], capture_output=True, text=True, env=os.environ)
    assert finished.returncode == 0 and "Sweep summary (2 runs;" in finished.stdout, finished.stderr[-2000:]


def test_a_job_submitit_requeues_on_sigusr2_checkpoints_and_continues_exactly(tmp_path):
    ppo = ("algo=ppo", "total_env_steps=16384", "eval.every=4096", "checkpoint.every=2048", "stop_when_solved=false")
    folder = tmp_path / "sweep"
    process = sweep(folder, "hydra/launcher=submitit_local", *ppo, "resume=auto")
    job = folder / "0"  # one job: nothing varies, so its folder is its number
    wait_for_checkpoints(process, job, 1)
    owner = re.match(r"process (\d+) ", (job / ".lock").read_text())
    assert owner is not None and int(owner.group(1)) != process.pid  # submitit's task process
    os.kill(int(owner.group(1)), signal.SIGUSR2)  # what submitit's controller sends as the time runs out
    _, err = process.communicate(timeout=300)
    assert process.returncode == 0, err[-2000:]
    log = (job / "__main__.log").read_text()
    assert "Requeued job" in log and re.search(r"resumed from .*/checkpoints/last\.ckpt", log)
    alone = tmp_path / "alone"
    run(alone, *ppo)
    assert_same_run(job, alone)
