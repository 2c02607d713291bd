"""A run or sweep folder is owned by one process: a second is refused in one line naming the first,
and the lock goes with the process that held it, however it ended."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import pytest

from rlfw.errors import ConfigError
from rlfw.state.lock import own, owned, release
from tests.helpers import run_cli

HOLD = "import sys, time; from pathlib import Path; from rlfw.state.lock import own; own(Path(sys.argv[1]), 'x'); print('held', flush=True); time.sleep(600)"


def test_a_folder_held_by_another_process_is_refused_naming_it_until_that_process_dies(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    with pytest.raises(ConfigError) as err:
        own(tmp_path, "hydra.run.dir")
    assert re.fullmatch(
        rf"hydra\.run\.dir={tmp_path} is in use by process {holder.pid} on \S+ since [\d-]+ [\d:]+ \(.*\);"
        r" wait for it to end \(or stop it\), or use another folder",
        str(err.value),
    )
    holder.send_signal(signal.SIGKILL)  # no clean-up: the operating system frees the lock
    holder.wait()
    with owned(tmp_path, "hydra.run.dir"):
        assert own(tmp_path, "hydra.run.dir") is False  # held by this process already
    assert own(tmp_path, "hydra.run.dir") is True  # freed when the block ended
    release(tmp_path)


def test_a_second_run_on_a_folder_in_use_is_refused_before_it_writes_anything(tmp_path):
    args = (
        "algo=ppo",
        "total_env_steps=1_000_000",
        "stop_when_solved=false",
        "resume=auto",
        f"hydra.run.dir={tmp_path}",
    )
    first = subprocess.Popen([sys.executable, "-m", "rlfw", *args], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "metrics.csv").exists():  # training
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        before = {p: p.stat().st_mtime_ns for p in (tmp_path / ".hydra").iterdir()}
        second = run_cli(*args)
        assert second.returncode == 2, second.stderr
        assert second.stderr.startswith(
            f"rlfw: config error: hydra.run.dir={tmp_path.resolve()} is in use by process {first.pid} "
        )
        assert len(second.stderr.strip().splitlines()) == 1
        assert {p: p.stat().st_mtime_ns for p in (tmp_path / ".hydra").iterdir()} == before
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    assert first.returncode == 130
