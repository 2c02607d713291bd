"""A non-editable install (a built wheel) finds its config tree from any directory."""

import json
import subprocess
import sys
import zipfile

from tests.helpers import ROOT


def test_wheel_ships_conf_and_runs_outside_the_repo(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", tmp_path / "dist", ROOT],
        check=True, capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("rlfw-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "rlfw/conf/config.yaml" in names and "rlfw/conf/algo/ppo.yaml" in names and "rlfw/conf/tuned/dqn_cartpole.yaml" in names
    # A venv that sees the dependencies already installed, with the wheel itself installed on top.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
    python = venv / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-index", wheel], check=True, capture_output=True)
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = subprocess.run([python, "-c", "import rlfw.config_path as c; print(c.config_dir())"], cwd=work, capture_output=True, text=True, check=True)
    assert where.stdout.strip().startswith(str(venv))
    result = subprocess.run(
        [python, "-m", "rlfw", "algo=dqn", "total_env_steps=300", "replay.learning_starts=100", "eval.every=300", "eval.episodes=2", "hydra.run.dir=run"],
        cwd=work, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads((work / "run" / "summary.json").read_text())["algo"] == "dqn"
