"""MuJoCo's own warnings (gymnasium's v4 models use a deprecated XML attribute) reach the rlfw log, not
a MUJOCO_LOG.TXT in the user's working folder."""

import logging

import pytest

from rlfw.env.mujoco import MujocoEnv

pytest.importorskip("mujoco")


def test_mujocos_warnings_go_to_the_log_not_a_file_in_the_working_folder(tmp_path, monkeypatch, caplog):
    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.DEBUG, logger="rlfw"):
        envs = MujocoEnv("HalfCheetah-v4").make(1)
        envs.reset(seed=0)
        envs.close()
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()
    assert any(r.getMessage().startswith("MuJoCo: compiler attribute") for r in caplog.records)
