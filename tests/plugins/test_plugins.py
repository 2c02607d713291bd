"""Plugins from outside: a pip-installed package's options are one override away, are listed, and a
broken plugin is reported by name without stopping rlfw (an error with RLFW_STRICT_PLUGINS=1)."""

import json
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT, pip_install, venv_with_our_dependencies, venv_with_rlfw

FIXTURE = ROOT / "tests" / "fixtures" / "scaled_dqn_plugin"
TEXT = {"capture_output": True, "text": True, "timeout": 300}
SHORT = ["total_env_steps=600", "replay.learning_starts=200", "eval.every=600", "eval.episodes=2"]


def venv_site(python: Path) -> Path:
    out = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True, **TEXT
    )
    return Path(out.stdout.strip())


def rlfw(python: Path, cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [python, "-m", "rlfw", *args], cwd=cwd, capture_output=True, text=True, timeout=300, env={**os.environ, **env}
    )


def venv_with(tmp_path: Path, rlfw_wheel: Path, rlfw_editable: bool) -> Path:
    """A venv with rlfw installed as a user would: from its wheel, or editable from this checkout."""
    if not rlfw_editable:
        return venv_with_rlfw(tmp_path / "venv", rlfw_wheel)
    python = venv_with_our_dependencies(tmp_path / "venv")
    pip_install(python, "-e", ROOT)
    return python


@pytest.mark.parametrize(
    "rlfw_editable, plugin_editable",
    [(False, True), (True, False)],
    ids=["rlfw-wheel-plugin-editable", "rlfw-editable-plugin-wheel"],
)
def test_a_plugin_is_found_from_any_folder(tmp_path, rlfw_wheel, rlfw_editable, plugin_editable):
    """From a folder outside the repository, whichever way rlfw and the plugin were installed: its algo
    and loss are one override away and listed in --help (STACK.md: Hydra's own plugin scan finds
    nothing through a setuptools editable install). Each package is installed each way once: what an
    install of one does not depend on how the other was installed."""
    python = venv_with(tmp_path, rlfw_wheel, rlfw_editable)
    pip_install(python, *(["-e"] if plugin_editable else []), FIXTURE)
    work = tmp_path / "elsewhere"
    work.mkdir()
    result = rlfw(python, work, "algo=scaled_dqn", "loss.scale=0.25", *SHORT, "hydra.run.dir=a")
    assert result.returncode == 0, result.stderr
    assert json.loads((work / "a" / "summary.json").read_text())["algo"] == "scaled_dqn"
    assert "name: scaled_dqn\n  scale: 0.25" in (work / "a" / "resolved.yaml").read_text()
    help_text = rlfw(python, work, "--help").stdout
    assert (
        "algo: a2c, a2c_lstm, bc, c51, cql, ddpg, discrete_cql, double_dqn, dqn, iql, mappo, ppo, ppo_lstm, rainbow, sac,"
        " scaled_dqn, td3, td3_bc" in help_text
    )
    assert "loss: a2c, bc, c51, cql, discrete_cql, double_dqn, dqn, iql, ppo, sac, scaled_dqn, td3, td3_bc" in help_text
    where = subprocess.run(
        [python, "-c", "from rlfw.config.path import config_dir; print(config_dir())"], cwd=work, **TEXT
    )
    assert where.stdout.strip() == (str(ROOT / "conf") if rlfw_editable else str(venv_site(python) / "rlfw" / "conf"))
    scan = "from hydra.core.plugins import Plugins; from hydra.plugins.sweeper import Sweeper as S; print(Plugins.instance().discover(S))"
    sweepers = subprocess.run([python, "-c", scan], cwd=work, **TEXT)  # hydra/sweeper=rlfw_optuna, optuna not installed
    assert "hydra_plugins.rlfw_optuna.RlfwOptunaSweeper" in sweepers.stdout and sweepers.stderr == "", sweepers.stderr


def test_a_plugin_keeps_the_contracts_and_is_listed(tmp_path, rlfw_wheel):
    python = venv_with_rlfw(tmp_path / "venv", rlfw_wheel)
    pip_install(python, FIXTURE)
    contract = subprocess.run(
        [python, "-c", "from rlfw.testing import check_loss; check_loss('scaled_dqn', scale=0.25)"], **TEXT
    )
    assert contract.returncode == 0, contract.stderr
    listing = subprocess.run([python, "-m", "rlfw.plugins"], check=True, **TEXT).stdout
    assert "  scaled_dqn  [rlfw-scaled-dqn 0.0.1]\n      keys: scale: float = 0.5, td_loss: str = 'huber'" in listing
    assert "needs outputs q; needs batch" in listing
    assert "installed plugins (entry point group rlfw.plugins): scaled_dqn" in listing


def test_the_wheel_ships_the_config_tree(rlfw_wheel):
    names = zipfile.ZipFile(rlfw_wheel).namelist()
    assert {"rlfw/conf/config.yaml", "rlfw/conf/algo/ppo.yaml", "rlfw/conf/tuned/dqn_cartpole.yaml"} <= set(names)


def write_plugin(root: Path, name: str, code: str, yaml_for: str | None = None) -> Path:
    """A one-module plugin distribution ``rlfw-<name>`` with an optional conf/loss/<yaml_for>.yaml."""
    (root / name / "conf" / "loss").mkdir(parents=True)
    (root / name / "__init__.py").write_text(code)
    (root / name / "conf" / "__init__.py").write_text("")
    if yaml_for:
        (root / name / "conf" / "loss" / f"{yaml_for}.yaml").write_text(f"name: {yaml_for}\n")
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "rlfw-{name}"\nversion = "0.0.1"\n[project.entry-points."rlfw.plugins"]\n{name} = "{name}"\n'
        f'[tool.setuptools.packages.find]\ninclude = ["{name}*"]\n[tool.setuptools.package-data]\n"{name}.conf" = ["**/*.yaml"]\n'
    )
    return root


BROKEN = {
    "crashes": ('raise RuntimeError("no GPU driver here")\n', None),
    "clashes": (
        "from rlfw import register\nfrom rlfw.loss.dqn import DQNLoss\n\n"
        "@register('loss', 'fresh_name')\nclass A(DQNLoss):\n    pass\n\n"
        "@register('loss', 'dqn')\nclass B(DQNLoss):\n    pass\n",
        "fresh_name",
    ),
    "noyaml": (
        "from rlfw import register\nfrom rlfw.loss.dqn import DQNLoss\n\n@register('loss', 'noyaml')\nclass C(DQNLoss):\n    pass\n",
        None,
    ),
}


def test_broken_plugins_are_named_and_rlfw_still_starts(tmp_path, rlfw_wheel):
    python = venv_with_rlfw(tmp_path / "venv", rlfw_wheel)
    for name, (code, yaml_for) in BROKEN.items():
        pip_install(python, write_plugin(tmp_path / f"src_{name}", name, code, yaml_for))
    result = rlfw(python, tmp_path, "algo=dqn", *SHORT, "hydra.run.dir=run")
    assert result.returncode == 0, result.stderr
    out = result.stdout + result.stderr
    assert "plugin 'crashes' (rlfw-crashes 0.0.1): skipped: RuntimeError: no GPU driver here" in out
    assert "plugin 'clashes' (rlfw-clashes 0.0.1): skipped: ValueError: loss 'dqn' is already registered" in out
    assert "plugin 'noyaml' (rlfw-noyaml 0.0.1): registers loss 'noyaml' but ships no conf/loss/noyaml.yaml" in out
    refused = rlfw(python, tmp_path, "loss.name=fresh_name")  # a skipped plugin takes back all it registered
    assert "loss.name='fresh_name': not a registered loss" in refused.stderr
    strict = rlfw(python, tmp_path, "algo=dqn", *SHORT, "hydra.run.dir=strict", RLFW_STRICT_PLUGINS="1")
    assert strict.returncode == 2 and len(strict.stderr.strip().splitlines()) == 1
    assert (
        strict.stderr.startswith("rlfw: config error: plugin 'clashes'") and "(RLFW_STRICT_PLUGINS=1)" in strict.stderr
    )
    assert not (tmp_path / "strict").exists()


def test_the_docs_quote_the_tested_plugin_verbatim():
    readme = (ROOT / "docs" / "guide" / "plugins.md").read_text()
    for path in (
        "scaled_dqn/__init__.py",
        "scaled_dqn/conf/loss/scaled_dqn.yaml",
        "scaled_dqn/conf/algo/scaled_dqn.yaml",
    ):
        assert (FIXTURE / path).read_text().rstrip() in readme, path
