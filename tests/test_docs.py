"""Every shell command in the README, ``docs/index.md`` and ``docs/guide/*.md`` is checked as written.

By default each is a dry run in this process (a second or two; a sweep's every job is checked):
``python -m rlfw ...`` composes and passes every check a run makes before training (``dry_run`` stops it
there); ``rlfw.play``, ``rlfw.export`` and ``rlfw.compare`` parse their arguments; ``pip install -e
".[x]"`` names extras that exist; a transcript's documented error is the one rlfw prints. ``python -m pytest -m docs`` runs each
command for real instead, with budgets lowered (``lowered``), from a folder outside the clone as a user
would. ``tests/docs_commands.py`` finds the commands.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from rlfw.agent.arguments import parse
from rlfw.compare import parser as compare_parser
from rlfw.config.preflight import composed
from rlfw.dataset.__main__ import parser as dataset_parser
from rlfw.export import Export
from rlfw.play import Play
from tests.docs_commands import COMMANDS, DISTINCT, PLACEHOLDER, Command
from tests.helpers import ROOT, run_in_process
from tests.offline_data import CARTPOLE, PENDULUM

EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]


class Accepted(Exception):
    """A run that passed every check and would train now."""


@pytest.fixture
def dry_run(monkeypatch):
    """``python -m rlfw`` stops where training would start: in this process (both entry points'
    references, as ``never_train``), or where a launcher that runs jobs in other processes would start
    them (its sweep's jobs were all checked before: ``rlfw.config.preflight.check_sweep``)."""
    import hydra_plugins.hydra_joblib_launcher.joblib_launcher as joblib
    import hydra_plugins.hydra_ray_launcher.ray_launcher as ray
    import hydra_plugins.hydra_submitit_launcher.submitit_launcher as submitit

    import rlfw.run.api
    import rlfw.run.train

    def accepted(*args, **kwargs):
        raise Accepted

    monkeypatch.setattr(rlfw.run.train, "train", accepted)
    monkeypatch.setattr(rlfw.run.api, "train_job", accepted)
    for launcher in (joblib.JoblibLauncher, ray.RayLauncher, submitit.BaseSubmititLauncher):
        monkeypatch.setattr(launcher, "launch", accepted)


def test_the_docs_hold_the_commands_this_file_checks():
    """A parser that found nothing would make every check below pass: the README alone has 25."""
    assert len(COMMANDS) >= 60
    assert {c.file for c in COMMANDS} >= {"README.md", "docs/index.md", "docs/guide/agents.md"}


ONLINE_KEYS = ("online=", "init_from=", "total_env_steps=", "total_updates=", "hydra.")


@pytest.fixture(scope="session")
def offline_checkpoints(dataset_root, tmp_path_factory) -> dict[tuple[str, ...], Path]:
    """The checkpoint each documented ``init_from=`` names, for the dry run: its command without the online
    keys, trained 10 updates on the stand-in dataset (``-m docs`` runs the command that writes the real one)."""
    import rlfw

    made = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINARI_DATASETS_PATH", str(dataset_root))
        for command in (c for c in DISTINCT if any(a.startswith("init_from=") for a in c.argv)):
            offline = [stand_in(a, command.argv, {}) for a in command.argv if not a.startswith(ONLINE_KEYS)]
            run = tmp_path_factory.mktemp("offline") / "run"
            rlfw.train(
                [*offline, "total_updates=10", "replay.updates=10", "eval.every=10", "eval.episodes=1"], run_dir=run
            )
            made[command.argv] = run / "checkpoints" / "last.ckpt"
    return made


@pytest.mark.parametrize("command", DISTINCT, ids=[c.id for c in DISTINCT])
def test_a_documented_command_composes_and_passes_rlfws_checks(
    command: Command, tmp_path, monkeypatch, capsys, dry_run, datasets, offline_checkpoints
):
    monkeypatch.chdir(tmp_path)
    argv = [stand_in(arg, command.argv, offline_checkpoints) for arg in command.filled(tmp_path)]
    if command.program == "pip":
        extras = re.findall(r"\[([^\]]+)\]", " ".join(argv))
        assert all(e in EXTRAS for group in extras for e in group.split(",")), f"{command}: no such extra"
    elif command.program == "rlfw":
        dry_run_rlfw(command, argv, capsys)
    elif command.program == "rlfw.play":
        parse(argv, Play)
    elif command.program == "rlfw.export":
        parse(argv, Export)
    elif command.program == "rlfw.dataset":
        dataset_parser().parse_args(argv)
    elif command.program == "rlfw.compare":
        compare_parser().parse_args(argv)
    elif command.program == "rlfw.plugins":
        from rlfw.plugins.listing import main

        main()
        assert "algo  (conf/algo/" in capsys.readouterr().out  # every config group, not only the registry's
    else:
        pytest.fail(f"{command}: this file does not know how to check {command.program!r}")


def stand_in(arg: str, argv: tuple[str, ...], checkpoints: dict[tuple[str, ...], Path]) -> str:
    """A dataset a documented command learns from, or a checkpoint it starts from, written by a command
    before it: in the dry run, the test dataset of the same env (``tests.offline_data``) and the checkpoint
    ``offline_checkpoints`` made; ``-m docs`` runs the commands that write them."""
    if arg.startswith("init_from="):
        return f"init_from={checkpoints[argv]}"
    if not arg.startswith("data.id="):
        return arg
    for env, dataset in (("env=pendulum", PENDULUM), ("env=cartpole", CARTPOLE)):
        if env in argv:
            return f"data.id={dataset}"
    raise AssertionError(f"{shlex.join(argv)}: no test dataset stands in for its data.id (tests/offline_data.py)")


def dry_run_rlfw(command: Command, argv: list[str], capsys) -> None:
    try:
        code, out, err = run_in_process(argv, capsys)
    except Accepted:
        assert command.said is None, f"{command}: the docs show it refused ({command.said}); it was accepted"
        return
    if command.said is not None:  # a transcript: the error it shows, "..." standing for the rest
        pattern = ".*".join(re.escape(part) for part in command.said.split("..."))
        assert code == 2 and re.fullmatch(pattern, err.strip()), (
            f"{command}: the docs show\n{command.said}\nrlfw says\n{err}"
        )
    elif "--cfg" in argv:
        assert code == 0 and out.strip(), f"{command}: {err}"
    elif (refusal := refused_here(argv)) is not None:  # Slurm's launcher on a machine without sbatch
        assert code == 2 and refusal in err and "hydra/launcher=submitit_local" in err, err
        assert len(err.strip().splitlines()) == 1, err
    else:
        pytest.fail(f"{command}: exit {code}, not accepted\n{err[-2000:]}")


def test_the_docs_build_fails_on_a_link_to_a_missing_anchor(tmp_path):
    """mkdocs reports a missing anchor at INFO unless told (mkdocs.yml: validation.anchors); and a
    ``--quiet`` build drops the warnings ``--strict`` counts, so .ci/run builds without it."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path)
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks/results").symlink_to(ROOT / "benchmarks/results")
    page = tmp_path / "docs/where.md"
    page.write_text(page.read_text() + "\nSee [the design](design.md#no-such-anchor).\n")
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")]
    result = subprocess.run(build, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode != 0 and "no-such-anchor" in result.stderr, result.stderr[-2000:]


@pytest.mark.docs
def test_every_documented_command_runs_for_real(tmp_path):
    """``-m docs``: each command in the docs' order, from one working folder outside the clone (a later
    command reads what an earlier one wrote: ``outputs/my_ppo``, the last sweep's folder), each a real
    process with its budget lowered (``lowered``), on a headless machine's environment. It ends as its
    docs say: exit code 0, or the documented one-line refusal."""
    work = tmp_path / "work"
    work.mkdir()
    # a headless machine's environment: SDL looking for a display would print an XDG_RUNTIME_DIR error line
    headless = ("DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "SDL_VIDEODRIVER")
    env = {k: v for k, v in os.environ.items() if k not in headless}
    env["MINARI_DATASETS_PATH"] = str(tmp_path / "datasets")  # what rlfw.dataset writes, data=minari reads
    failed = []
    for command in COMMANDS:
        if command.program == "pip":  # the extras are checked by the dry run; this venv has them all
            continue
        argv = with_overrides(real_arguments(command, work), lowered(command))
        result = subprocess.run(
            [sys.executable, "-m", command.program, *argv],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=1800,
            env=env,
        )
        refusal = command.said or refused_here(argv)
        if refusal is not None:
            ok = result.returncode == 2 and refusal.split("...")[0].strip() in result.stderr
        else:
            ok = result.returncode == 0 and not any(w in result.stderr for w in ("Traceback", "XDG_RUNTIME_DIR"))
        if not ok:
            failed.append(
                f"{command}\n  as run: {shlex.join(argv)}\n  exit {result.returncode}: {result.stderr[-1500:]}"
            )
    assert not failed, "\n\n".join(failed)


def with_overrides(argv: list[str], overrides: list[str]) -> list[str]:
    """``argv`` with each of ``overrides`` in place of the argument that sets the same key, else after it
    (Hydra refuses a key set twice)."""
    keys = {o.split("=", 1)[0]: o for o in overrides}
    replaced = [keys.pop(a.split("=", 1)[0], a) for a in argv]
    return [*replaced, *keys.values()]


def refused_here(argv: list[str]) -> str | None:
    """What a command the docs show ends in on this machine: a window with no display, Slurm without sbatch."""
    if "render=human" in argv and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "render='human': no display here"
    if "hydra/launcher=submitit_slurm" in argv and shutil.which("sbatch") is None:
        return "hydra/launcher=submitit_slurm: Slurm's sbatch is not on this machine's PATH"
    return None


def real_arguments(command: Command, work: Path) -> list[str]:
    """The arguments with placeholders filled: a folder to run in (``hydra.run.dir=<run>``,
    ``hydra.sweep.dir=<sweep>``) is a new one, so ``resume=auto`` starts there; a folder to read
    (``rlfw.compare outputs/multirun/<time>``) is the newest sweep the commands before made."""
    sweeps = sorted((work / "outputs/multirun").glob("*"), key=lambda p: p.stat().st_mtime)
    filled = []
    for arg in command.argv:
        if arg.startswith(("hydra.run.dir=", "hydra.sweep.dir=")):
            arg = PLACEHOLDER.sub(f"new_{command.line}", arg)
        elif sweeps:
            arg = PLACEHOLDER.sub(sweeps[-1].name if "multirun/<" in arg else str(sweeps[-1].relative_to(work)), arg)
        filled.append(arg)
    return filled


def lowered(command: Command) -> list[str]:
    """Overrides that shorten a training command: a budget of one rollout (at least 2,048 env steps), two
    eval episodes, off-policy replays that learn from step 500 in a small buffer, two Optuna trials."""
    if command.program != "rlfw" or "--cfg" in command.argv or command.said is not None:
        return []  # not a training command, or one its docs show refused
    first = [a.split(",")[0] for a in command.argv if "=" in a and not a.startswith(("hydra", "search="))]
    for search in (a.removeprefix("search=") for a in command.argv if a.startswith("search=")):
        text = (ROOT / f"conf/search/{search}.yaml").read_text()  # the algo and env its yaml picks
        first += [f"{group}={name}" for group, name in re.findall(r"override /(algo|env): (\w+)", text)]
    cfg = composed(*first)
    replay = cfg["replay"]
    if replay["name"] == "dataset":  # learning from data: its budget counts updates
        return ["total_updates=1000", "eval.every=500", "eval.episodes=2", "++replay.updates=250"]  # ++: as below
    budget = max(2048, replay["num_steps"] * cfg["num_envs"]) if replay["name"] == "rollout" else 2048
    extra = [f"total_env_steps={budget}", f"eval.every={budget}", "eval.episodes=2"]
    if replay["name"] != "rollout":  # ++: in a sweep over algos, the primary config's replay may lack them
        extra += ["++replay.learning_starts=500", "++replay.capacity=10000"]
    if any(a.startswith("search=") for a in command.argv):
        extra.append("hydra.sweeper.n_trials=2")
    return extra
