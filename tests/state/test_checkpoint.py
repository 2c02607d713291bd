"""Checkpoints: rotation, atomic writes, safe loading, and the one-line refusals of a bad resume."""

from __future__ import annotations

import json
import pickle
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from rlfw.config.preflight import check_folder
from rlfw.errors import ConfigError, RunError
from rlfw.state import checkpoint
from rlfw.state.resume import prepare_resume
from tests.helpers import config, run
from tests.state.test_resume import assert_same_run

ARGS = (
    "algo=dqn",
    "total_env_steps=3000",
    "replay.learning_starts=300",
    "eval.every=1000",
    "checkpoint.every=500",
    "checkpoint.keep=2",
)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("finished")
    run(run_dir, *ARGS)
    return run_dir


def test_the_newest_checkpoints_are_kept_each_with_its_replay_and_last_links_the_newest(finished):
    folder = finished / "checkpoints"
    numbered = sorted(p.name for p in folder.glob("env_steps=*.ckpt"))
    assert numbered == ["env_steps=000000002560.ckpt", "env_steps=000000003000.ckpt"]  # keep=2; 3000: the end
    assert all((folder / n).with_suffix(".replay").is_file() for n in numbered)
    assert len(list(folder.glob("*.replay"))) == 2 and not list(folder.glob("*.partial"))
    assert (folder / "last.ckpt").read_bytes() == (folder / numbered[-1]).read_bytes()


def test_a_resume_with_more_env_steps_goes_on_from_the_end(finished, tmp_path):
    cfg = config(*ARGS, "total_env_steps=4000", "resume=auto")
    resume = prepare_resume("auto", finished, cfg)
    assert resume.state["run"]["env_steps"] == 3000


@pytest.mark.parametrize(
    "override, named",
    [
        ("network.encoder.hidden=[32,32]", "network.encoder.hidden"),
        ("algo=double_dqn", "loss.name"),
        ("seed=1", "seed"),
    ],
)
def test_a_resume_that_changes_the_run_is_refused_naming_the_keys(finished, override, named):
    cfg = config(*ARGS, override, "resume=auto")
    with pytest.raises(ConfigError, match=rf"is a different run; these overrides change it: .*{named}"):
        prepare_resume("auto", finished, cfg)


def broken(tmp_path: Path, finished: Path, how: str) -> Path:
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    data = (finished / "checkpoints" / "last.ckpt").read_bytes()
    last = folder / "last.ckpt"
    if how == "truncated":
        last.write_bytes(data[: len(data) // 2])
    elif how == "garbled":
        last.write_bytes(bytes(b ^ 0x5A for b in data))
    elif how == "foreign":
        torch.save({"model": torch.zeros(3)}, last)
    elif how == "pickled code":  # what weights_only refuses to run
        last.write_bytes(pickle.dumps(print, protocol=2))
    elif how == "pickled object":  # torch.save's zip, holding an object that loading would construct
        torch.save({"model": Path("x")}, last)
    return last


@pytest.mark.parametrize(
    "how, says",
    [
        ("truncated", "is not a readable checkpoint (truncated or corrupt?): not the zip archive torch.save writes"),
        ("garbled", "is not a readable checkpoint (truncated or corrupt?): not the zip archive torch.save writes"),
        ("foreign", "is not an rlfw checkpoint"),
        ("pickled code", "is not a readable checkpoint (truncated or corrupt?): not the zip archive"),
        ("pickled object", "is not a readable checkpoint: it holds pickled Python objects"),
    ],
)
def test_a_bad_checkpoint_is_refused_in_one_line_naming_the_file(finished, tmp_path, how, says):
    last = broken(tmp_path, finished, how)
    with pytest.raises(ConfigError) as err:
        prepare_resume("auto", tmp_path, config(*ARGS, "resume=auto"))
    assert says in str(err.value) and str(last) in str(err.value) and "\n" not in str(err.value)
    assert "weights_only" not in str(err.value)  # not torch's advice to load it with its code run


def test_resume_auto_starts_a_run_in_a_folder_without_a_checkpoint(tmp_path):
    assert check_folder(config(*ARGS, "resume=auto"), tmp_path) is None  # no resume: a new run


def test_resume_auto_returns_a_finished_runs_result_and_goes_on_when_asked_for_more(finished):
    summary = json.loads((finished / "summary.json").read_text())
    done = check_folder(config(*ARGS, "resume=auto"), finished)
    assert done is not None and done.summary == summary  # nothing to train: the recorded result
    assert done.path == finished / "checkpoints" / "last.ckpt"
    more = check_folder(config(*ARGS, "total_env_steps=4000", "resume=auto"), finished)
    assert more is not None and more.summary is None and more.state["run"]["env_steps"] == 3000


def test_a_truncated_replay_is_refused_in_one_line_naming_the_older_intact_checkpoint(finished, tmp_path):
    shutil.copytree(finished, tmp_path / "run")
    folder = tmp_path / "run" / "checkpoints"
    replay = folder / "env_steps=000000003000.replay"
    replay.write_bytes(replay.read_bytes()[:1000])
    with pytest.raises(ConfigError) as err:
        check_folder(config(*ARGS, "total_env_steps=4000", "resume=auto"), tmp_path / "run")
    older = folder / "env_steps=000000002560.ckpt"
    assert str(err.value).startswith(f"resume: {replay} is not a readable replay file (truncated or corrupt?)")
    assert str(err.value).endswith(f"; {older} is intact: resume from it with \"resume='{older}'\"")
    assert "\n" not in str(err.value)
    assert check_folder(config(*ARGS, "total_env_steps=4000", f"resume='{older}'"), tmp_path / "run")


def test_a_checkpoint_the_disk_cannot_hold_ends_in_one_line_and_the_one_before_resumes(tmp_path):
    """A full disk, made by a file size limit (Python ignores SIGXFSZ, so a write past it fails with
    EFBIG where one past a full disk fails with ENOSPC) between the sizes of the last two replay
    files, so the run fails writing its last checkpoint. A small network keeps the .ckpt files under it."""
    args = (*ARGS, "network.encoder.hidden=[16]")
    whole = tmp_path / "whole"
    run(whole, *args)
    sizes = sorted(p.stat().st_size for p in (whole / "checkpoints").glob("*.replay"))
    assert len(sizes) == 2 and sizes[0] < sizes[1] and (whole / "checkpoints" / "last.ckpt").stat().st_size < sizes[0]
    limit = (sizes[0] + sizes[1]) // 2
    full = tmp_path / "full"
    result = subprocess.run(
        [sys.executable, "-m", "rlfw", *args, f"hydra.run.dir={full}"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
    )
    last = full / "checkpoints" / "last.ckpt"
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert re.fullmatch(
        r"rlfw: could not write the checkpoint env_steps=000000003000\.ckpt: File too large at 3,000 env steps;"
        rf" newest whole checkpoint: {re.escape(str(last))}; resume with: .* resume=auto hydra\.run\.dir=.*",
        result.stderr.strip().splitlines()[-1],
    ), result.stderr[-1000:]
    files = sorted(p.name for p in last.parent.iterdir())  # nothing partial is left
    assert files == [
        "best.ckpt",
        *(f"env_steps=00000000{n}.{x}" for n in (2048, 2560) for x in ("ckpt", "replay")),
        "last.ckpt",
    ]
    assert torch.load(last, weights_only=False)["run"]["env_steps"] == 2560  # the one before
    run(full, *args, "resume=auto")
    assert_same_run(full, whole)


@pytest.mark.parametrize("deleted", ["run folder", "checkpoint folder"])
def test_a_folder_deleted_under_a_checkpoint_write_is_named_and_not_made_again(tmp_path, monkeypatch, deleted):
    """Deleted between the write's mkdir and its file: the whole run folder, or (as rmtree part way
    through the run folder leaves it) the checkpoint folder alone."""
    folder = tmp_path / "run" / "checkpoints"
    folder.mkdir(parents=True)
    gone = folder.parent if deleted == "run folder" else folder
    write_atomic = checkpoint.write_atomic

    def deleting_first(state, path):
        shutil.rmtree(gone)
        write_atomic(state, path)

    monkeypatch.setattr(checkpoint, "write_atomic", deleting_first)
    with pytest.raises(RunError) as err:
        checkpoint.Checkpoints(folder, every=None, every_s=None, keep=2).write(({}, folder / "best.ckpt"))
    assert str(err.value) == f"the {deleted} {gone} was deleted while the run trained"
    assert not gone.exists()


def test_a_new_run_is_refused_in_a_folder_that_holds_one(finished):
    with pytest.raises(ConfigError, match=r"already holds a run.*resume=auto"):
        check_folder(config(*ARGS), finished)


def test_best_ckpt_cannot_be_resumed_for_want_of_its_replay(finished):
    with pytest.raises(ConfigError, match="holds no replay contents"):
        prepare_resume(str(finished / "checkpoints" / "best.ckpt"), finished, config(*ARGS))
