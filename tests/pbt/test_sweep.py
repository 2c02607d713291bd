"""hydra/sweeper=rlfw_pbt end to end: a small population through two generations; SIGKILLed and
gone on with resume=auto it ends with the same table as an uninterrupted search, its best member's
schedule reruns alone to the same final evaluation, and bad settings end in one line with nothing written."""

import json
import re
import shlex
import signal
import sys
import time

import pytest
import yaml

from tests.config.test_sweep_resume import sweep
from tests.helpers import check_refused, run_in_process

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


def test_a_killed_search_goes_on_to_the_same_table_and_the_found_schedule_reruns_alone(tmp_path, capsys, monkeypatch):
    code, _, err = run_in_process(["-m", *PBT, f"hydra.sweep.dir={tmp_path / 'whole'}"], capsys)
    assert code == 0, err[-2000:]
    folder = tmp_path / "killed"
    process = sweep(folder, *PBT)
    state = folder / "pbt.json"
    while not state.is_file() or json.loads(state.read_text())["generation"] < 1:  # the first copy made
        assert process.poll() is None, process.stderr.read()[-2000:]
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    code, out, err = run_in_process(["-m", *PBT, "resume=auto", f"hydra.sweep.dir={folder}"], capsys)
    assert code == 0, err[-2000:]
    table = (tmp_path / "whole" / "pbt.md").read_text()
    assert (folder / "pbt.md").read_text() == table and len(table.splitlines()) == 2 + 2 * 2  # 2 generations of 2
    assert "member_1's" in table or "member_0's" in table  # a copy was made
    assert (folder / "pbt.png").is_file()
    found = yaml.safe_load((folder / "found" / "schedule.yaml").read_text())
    assert set(found["schedule"]) == {"optim", "target"} and set(found["schedule"]["optim"]["lr"]) <= {0, 512}

    command = re.search(r"run it alone: python -m rlfw (.*)", out)[1]
    monkeypatch.chdir(tmp_path)
    code, _, err = run_in_process([*shlex.split(command), "hydra.run.dir=alone"], capsys)
    assert code == 0, err[-2000:]
    best = re.search(r"best: (member_\d)", out)[1]
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


def test_a_members_own_failure_is_recorded_and_a_stop_or_config_error_still_ends_the_search():
    from hydra.core.utils import JobReturn, JobStatus

    from hydra_plugins.rlfw_pbt import Guarded, MemberFailed, failed

    def exits(code):
        def task(cfg):
            sys.exit(code)

        return task

    with pytest.raises(MemberFailed, match="exit code 1"):
        Guarded(exits(1))(None)  # rlfw's own run error: non-finite values, a broken env, a full disk
    for code in (2, 130, 143):  # a config error, Ctrl-C, SIGTERM: the sweep ends, as a basic sweep's would
        with pytest.raises(SystemExit):
            Guarded(exits(code))(None)
    assert Guarded(lambda cfg: 7.0)(None) == 7.0
    job = JobReturn(status=JobStatus.FAILED, _return_value=MemberFailed("its run ended in an error"))
    assert failed(job) == "its run ended in an error" and failed(JobReturn(status=JobStatus.COMPLETED)) is None
