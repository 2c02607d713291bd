"""hydra/sweeper=rlfw_pbt end to end: a small population through two generations; SIGKILLed and
gone on with resume=auto it ends with the same table as an uninterrupted search, its best member's
schedule reruns alone to the same final evaluation, and bad settings end in one line with nothing written."""

import json
import re
import shlex
import signal
import subprocess
import sys
import time

import pytest
import yaml

from tests.config.test_sweep_resume import sweep
from tests.helpers import check_refused, run_cli, run_in_process

PBT = (
    "search=pbt_dqn_cartpole",
    "network.encoder.hidden=[32,32]",
    "total_env_steps=1024",
    "replay.learning_starts=128",
    "eval.every=512",
    "eval.episodes=4",
    "checkpoint.every=256",
    "threads=1",
    "hydra.sweeper.population=2",
    "hydra.sweeper.quantile=0.5",
    "hydra.sweeper.interval=512",
)


def test_a_killed_search_goes_on_to_the_same_table_and_the_found_schedule_reruns_alone(tmp_path):
    whole = run_cli("-m", *PBT, f"hydra.sweep.dir={tmp_path / 'whole'}")
    assert whole.returncode == 0, whole.stderr[-2000:]
    folder = tmp_path / "killed"
    process = sweep(folder, *PBT)
    state = folder / "pbt.json"
    while not state.is_file() or json.loads(state.read_text())["generation"] < 1:  # the first copy made
        assert process.poll() is None, process.stderr.read()[-2000:]
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    resumed = run_cli("-m", *PBT, "resume=auto", f"hydra.sweep.dir={folder}")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    table = (tmp_path / "whole" / "pbt.md").read_text()
    assert (folder / "pbt.md").read_text() == table and len(table.splitlines()) == 2 + 2 * 2  # 2 generations of 2
    assert "member_1's" in table or "member_0's" in table  # a copy was made
    assert (folder / "pbt.png").is_file()
    found = yaml.safe_load((folder / "found" / "schedule.yaml").read_text())
    assert set(found["schedule"]) == {"optim", "target"} and set(found["schedule"]["optim"]["lr"]) <= {0, 512}

    command = re.search(r"run it alone: (python -m rlfw .*)", resumed.stdout)[1]
    alone = subprocess.run(
        [sys.executable, *shlex.split(command)[1:], "hydra.run.dir=alone"], cwd=tmp_path, capture_output=True, text=True
    )
    assert alone.returncode == 0, alone.stderr[-2000:]
    best = re.search(r"best: (member_\d)", resumed.stdout)[1]
    member = json.loads((folder / best / "summary.json").read_text())
    rerun = json.loads((tmp_path / "alone" / "summary.json").read_text())
    assert rerun["eval_return_mean"] == member["eval_return_mean"] and rerun["env_steps"] == member["env_steps"]


@pytest.mark.parametrize(
    ("override", "line"),
    [
        (
            "hydra.sweeper.interval=128",
            "hydra.sweeper.interval=128: shorter than one update phase of this run (256 env",
        ),
        (
            "+hydra.sweeper.params.network.encoder.hidden={low:16,high:64}",
            "hydra.sweeper.params: schedule.network.encoder",
        ),
        ("seed=3", "seed=3: a PBT search sets seed in each member's job"),
    ],
)
def test_a_bad_search_is_one_line_and_writes_nothing(override, line, tmp_path, capsys, never_train):
    code, out, err = run_in_process(["-m", *PBT, override, f"hydra.sweep.dir={tmp_path / 'sweep'}"], capsys)
    check_refused(code, out, err, tmp_path)
    assert line in err
