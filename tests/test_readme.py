"""The README's Python example runs as written, in a fresh folder, as a new user would paste it. Its
shell commands are checked with every documented command: each composes and passes rlfw's checks in
the default test command, and ``python -m pytest -m docs`` runs them for real (``tests/test_docs.py``)."""

import re
import subprocess
import sys

from tests.helpers import ROOT


def section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_use_a_trained_agents_python_runs_as_written(tmp_path):
    (python,) = blocks(section("Use a trained agent"), "python")
    result = subprocess.run([sys.executable, "-c", python], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    mean, action = result.stdout.split(maxsplit=1)
    assert float(mean) >= 0.9 and action.startswith("[")  # Catch solved: the tuned DQN's bar
