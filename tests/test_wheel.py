"""A non-editable install (a built wheel) finds its config tree from any directory."""

import json
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from tests.helpers import ROOT


def test_wheel_ships_conf_and_runs_outside_the_repo(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", tmp_path / "dist", ROOT],
        check=True, capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("rlfw-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "rlfw/conf/config.yaml" in names and "rlfw/conf/algo/ppo.yaml" in names and "rlfw/conf/tuned/dqn_cartpole.yaml" in names
    # A bare venv that sees the dependencies of *this* interpreter (not the base Python's, which may
    # have nothing installed) through a .pth file, with the wheel installed into its own site-packages.
    # The .pth puts those folders after the venv's own, and does not run their .pth files, so the
    # editable rlfw of this interpreter stays invisible.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True)
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site.stdout.strip()) / "outer_deps.pth").write_text("\n".join(sorted(ours)) + "\n")
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
