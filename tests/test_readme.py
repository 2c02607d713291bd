"""The README's examples run as written: the commands and the Python of "Use a trained agent",
in a fresh folder, as a new user would paste them."""

import os
import re
import subprocess
import sys

from tests.helpers import ROOT


def section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_use_a_trained_agent_runs_as_written(tmp_path):
    text = section("Use a trained agent")
    (commands,) = blocks(text, "bash")
    # a headless machine's environment: SDL looking for a display would print an XDG_RUNTIME_DIR error line
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_RUNTIME_DIR", "SDL_VIDEODRIVER", "DISPLAY")}
    for line in commands.splitlines():
        command = line.split("  #")[0].split()
        assert command[:2] == ["python", "-m"], line
        result = subprocess.run(
            [sys.executable, *command[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env
        )
        assert result.returncode == 0, f"{line}\n{result.stderr[-2000:]}"
        assert "XDG_RUNTIME_DIR" not in result.stderr, f"{line}\n{result.stderr[-2000:]}"
    assert (tmp_path / "outputs/my_ppo/play.mp4").is_file() and (
        tmp_path / "outputs/my_ppo/export/policy.onnx"
    ).is_file()
    (python,) = blocks(text, "python")
    result = subprocess.run([sys.executable, "-c", python], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    mean, action = result.stdout.split(maxsplit=1)
    assert float(mean) >= 0.9 and action.startswith("[")  # Catch solved: the tuned DQN's bar
