"""A non-editable install (a built wheel) finds its config tree from any directory."""

import json
import subprocess
import zipfile

from tests.helpers import ROOT, build_wheel, venv_with_our_dependencies


def test_wheel_ships_conf_and_runs_outside_the_repo(tmp_path):
    wheel = build_wheel(ROOT, tmp_path / "dist")
    names = zipfile.ZipFile(wheel).namelist()
    assert "rlfw/conf/config.yaml" in names and "rlfw/conf/algo/ppo.yaml" in names and "rlfw/conf/tuned/dqn_cartpole.yaml" in names
    assert "hydra_plugins/rlfw_plugins/search_path.py" in names
    venv = tmp_path / "venv"
    python = venv_with_our_dependencies(venv)
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
