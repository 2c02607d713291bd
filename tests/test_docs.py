"""Every shell command in the README, ``docs/index.md`` and ``docs/guide/*.md`` is checked as written.

By default each is a dry run in this process, a fraction of a second: ``python -m rlfw ...`` composes
and passes every check a run makes before training (``dry_run`` stops it there); ``rlfw.play``,
``rlfw.export`` and ``rlfw.compare`` parse their arguments; ``pip install -e ".[x]"`` names extras that
exist; a transcript's documented error is the one rlfw prints. ``python -m pytest -m docs`` runs each
command for real instead, with budgets lowered (``tests/docs_commands.py``), from a folder outside the
clone as a user would.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from rlfw.agent.arguments import parse
from rlfw.compare import parser as compare_parser
from rlfw.export import Export
from rlfw.play import Play
from tests.docs_commands import COMMANDS, Command
from tests.helpers import ROOT, run_in_process

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


@pytest.mark.parametrize("command", COMMANDS, ids=[c.id for c in COMMANDS])
def test_a_documented_command_composes_and_passes_rlfws_checks(
    command: Command, tmp_path, monkeypatch, capsys, dry_run
):
    monkeypatch.chdir(tmp_path)
    argv = command.filled(tmp_path)
    if command.program == "pip":
        extras = re.findall(r"\[([^\]]+)\]", " ".join(argv))
        assert all(e in EXTRAS for group in extras for e in group.split(",")), f"{command}: no such extra"
    elif command.program == "rlfw":
        dry_run_rlfw(command, argv, capsys)
    elif command.program == "rlfw.play":
        parse(argv, Play)
    elif command.program == "rlfw.export":
        parse(argv, Export)
    elif command.program == "rlfw.compare":
        compare_parser().parse_args(argv)
    elif command.program == "rlfw.plugins":
        from rlfw.plugins.listing import main

        main()
        assert "algo  (conf/algo/" in capsys.readouterr().out  # every config group, not only the registry's
    else:
        pytest.fail(f"{command}: this file does not know how to check {command.program!r}")


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
    elif "hydra/launcher=submitit_slurm" in argv and shutil.which("sbatch") is None:
        assert code == 2 and "hydra/launcher=submitit_local" in err and len(err.strip().splitlines()) == 1, err
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
