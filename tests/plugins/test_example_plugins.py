"""Each example plugin in plugins/ installs with pip next to an installed rlfw and passes its own tests
(which use rlfw.testing and learn CartPole)."""

import subprocess

import pytest

from tests.helpers import ROOT, pip_install, venv_with_rlfw

PLUGINS = sorted(p for p in (ROOT / "plugins").iterdir() if (p / "pyproject.toml").is_file())


def test_there_are_example_plugins():
    assert [p.name for p in PLUGINS] == ["rlfw-munchausen", "rlfw-qr-dqn"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "learning",
    [False, pytest.param(True, marks=pytest.mark.seeds)],  # their learning tests (a CartPole run each): -m seeds
    ids=["contracts", "learning"],
)
def test_example_plugins_pass_their_own_tests(tmp_path, rlfw_wheel, learning):
    """Both in one venv beside rlfw's wheel (a user may install several), their tests in one pytest run."""
    python = venv_with_rlfw(tmp_path / "venv", rlfw_wheel)
    pip_install(python, *PLUGINS)
    chosen = ["-k", "test_learns_cartpole" if learning else "not test_learns_cartpole"]
    result = subprocess.run(
        [python, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *chosen, *(f"{p.name}/tests" for p in PLUGINS)],
        cwd=ROOT / "plugins",
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    last = result.stdout.splitlines()[-1]
    assert " passed" in last and "failed" not in last and "skipped" not in last, last
    for plugin in PLUGINS:  # each plugin's tests ran
        assert f"PASSED {plugin.name}/tests/" in result.stdout, result.stdout[-4000:]
    assert result.stdout.count("::test_learns_cartpole") == (len(PLUGINS) if learning else 0)
