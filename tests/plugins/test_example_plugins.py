"""Each example plugin in plugins/ installs with pip next to an installed rlfw and passes its own tests
(which use rlfw.testing and learn CartPole)."""

import subprocess

import pytest

from tests.helpers import ROOT, build_wheel, pip_install, venv_with_rlfw

PLUGINS = sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").is_file())


def test_there_are_example_plugins():
    assert [p.name for p in PLUGINS] == ["rlfw-munchausen", "rlfw-qr-dqn"]


@pytest.mark.slow
@pytest.mark.parametrize("plugin", PLUGINS, ids=[p.name for p in PLUGINS])
def test_example_plugin_passes_its_own_tests(tmp_path, plugin):
    python = venv_with_rlfw(tmp_path / "venv", build_wheel(ROOT, tmp_path / "dist"))
    pip_install(python, plugin)
    result = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=plugin,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert " passed" in result.stdout.splitlines()[-1] and "failed" not in result.stdout.splitlines()[-1]
