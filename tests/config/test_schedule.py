"""``schedule:``: values set by env step as a run trains, checked before it starts; ``pause_at`` ends a
start of the run checkpointed, and a resume may add to the schedule from its checkpoint on."""

import csv
import json
import re

import pytest
import torch

import rlfw
from rlfw.config.preflight import composed
from rlfw.config.schedule import build_schedule, changed_before, in_effect, leaves
from rlfw.errors import ConfigError


def test_a_schedule_is_a_step_function_of_its_keys():
    found = leaves({"optim": {"lr": {100: 2.0, 0: 1.0}}, "loss": {"ent_coef": {50: 0.0}}})
    assert found == {"optim.lr": {0: 1.0, 100: 2.0}, "loss.ent_coef": {50: 0.0}}
    steps = found["optim.lr"]
    assert [in_effect(steps, s) for s in (0, 99, 100, 10**9)] == [1.0, 1.0, 2.0, 2.0]
    assert in_effect(found["loss.ent_coef"], 49) is None  # before its first step the key's own value holds


def test_a_resume_may_change_a_schedule_only_from_its_checkpoint_on():
    saved = {"optim": {"lr": {0: 1.0, 100: 2.0}}}
    assert changed_before(saved, {"optim": {"lr": {0: 1.0, 100: 2.0, 200: 3.0}}}, 200) == []
    assert changed_before(saved, {"optim": {"lr": {0: 1.0, 100: 5.0}}}, 100) == []  # at its step: not trained yet
    assert changed_before(saved, {"optim": {"lr": {0: 1.0, 100: 5.0}}}, 101) == ["optim.lr"]
    assert changed_before(saved, {}, 1) == ["optim.lr"]


@pytest.mark.parametrize(
    ("overrides", "line"),
    [
        (["+schedule.network.encoder.hidden={0:3}"], "schedule.network.encoder.hidden: only optim, loss, explore"),
        (["+schedule.loss.td_loss={0:1.0}"], "loss=dqn cannot change td_loss as it trains; it can change: clip_delta"),
        (["+schedule.optim.lrr={0:1.0}"], "optim=adam has no hyperparameter lrr (did you mean lr?)"),
        (["+schedule.loss.clip_delta={0:1.0,500:-1.0}"], "at env step 500: loss.clip_delta=-1.0: must be > 0"),
        (["+schedule.explore.decay_steps={0:1.5}"], "1.5 is not an integer"),
        (["+schedule.optim.groups.q.lr={0:1.0}"], "'q' has no group of its own in optim.groups"),
        (["+schedule.optim.lr=0.1"], "schedule.optim.lr=0.1: expected {env_step: value, ...}"),
        (["+schedule.optim.lr={-5:0.1}"], "env step -5 is negative"),
    ],
)
def test_a_bad_schedule_is_one_line_before_anything_is_written(overrides, line, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=re.escape(line)):
        rlfw.train(["algo=dqn", *overrides])
    assert list(tmp_path.iterdir()) == []


def test_the_learning_rate_of_one_group_follows_its_schedule_under_the_linear_decay():
    from rlfw.config.build import build_parts

    cfg = composed("algo=sac", "env=pendulum", "optim.anneal_lr=true", "+optim.groups.critic.lr=0.01")
    cfg["schedule"] = {"optim": {"lr": {0: 0.5}, "groups": {"critic": {"lr": {10: 0.2}}}}}
    parts = build_parts(cfg)
    optimizer = parts.optim.build(parts.net, parts.loss)
    decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 - step / 10)
    for _ in range(5):
        optimizer.step()
        decay.step()
    lrs = lambda: {g["name"]: g["lr"] for g in optimizer.param_groups}  # noqa: E731
    parts.schedule.apply(9, optimizer, decay)
    assert lrs()["default"] == pytest.approx(0.25)  # 0.5, half decayed
    assert lrs()["critic"] == pytest.approx(0.005)  # its own lr, not the schedule's optim.lr
    parts.schedule.apply(10, optimizer, decay)
    assert lrs()["critic"] == pytest.approx(0.1)
    decay.step()
    assert lrs()["critic"] == pytest.approx(0.08) and lrs()["default"] == pytest.approx(0.2)  # the decay goes on


def test_a_paused_run_goes_on_with_its_schedule_extended(tmp_path):
    run = tmp_path / "run"
    base = ["algo=dqn", "total_env_steps=3072", "eval.every=1024", "stop_when_solved=false", "log_every=20"]
    base += ["replay.learning_starts=256", "explore.decay_steps=1000", "optim.anneal_lr=false"]
    first = rlfw.train([*base, "+schedule.optim.lr={0:0.001,1024:0.0005}", "pause_at=2000"], run_dir=run)
    assert first["env_steps"] == 2048 and first["evals"][-1]["env_steps"] == 2048  # evaluated where it paused
    assert (run / "checkpoints" / "env_steps=000000002048.ckpt").is_file()
    extended = "+schedule.optim.lr={0:0.001,1024:0.0005,2048:0.0001}"
    with pytest.raises(ConfigError, match=r"schedule.optim.lr before 2,048 \(where the checkpoint is\)"):
        rlfw.train([*base, "+schedule.optim.lr={0:0.002,2048:0.0001}", "resume=auto"], run_dir=run)
    second = rlfw.train([*base, extended, "+schedule.explore.end={2500:0.5}", "resume=auto"], run_dir=run)
    assert second["env_steps"] == 3072 and json.loads((run / "summary.json").read_text())["env_steps"] == 3072
    rows = [r for r in csv.DictReader(open(run / "metrics.csv")) if r["train/lr"]]
    lr = {int(r["step"]): float(r["schedule/optim.lr"]) for r in rows}
    assert {lr[s] for s in lr if s < 1024} == {0.001} and {lr[s] for s in lr if 1024 < s <= 2048} == {0.0005}
    assert {lr[s] for s in lr if s > 2048} == {0.0001}
    assert {float(r["train/lr"]) for r in rows if int(r["step"]) > 2048} == {0.0001}  # no decay: in the optimizer
    epsilon = {int(r["step"]): float(r["train/epsilon"]) for r in rows}
    assert len({e for s, e in epsilon.items() if 1000 < s < 2500}) == 1  # the decay's end, then the schedule's
    assert epsilon[max(epsilon)] == 0.5


def test_every_key_a_part_declares_schedulable_is_an_attribute_it_has():
    from rlfw.config.build import build_parts

    for algo in ("ppo", "a2c", "dqn", "td3", "ddpg"):
        env = "pendulum" if algo in ("td3", "ddpg") else "cartpole"
        parts = build_parts(composed(f"algo={algo}", f"env={env}"))
        cfg = {"loss": parts.loss, "explore": parts.explore, "target": parts.target}
        for group, part in cfg.items():
            for name in type(part).schedulable:
                assert isinstance(getattr(part, name), (int, float)), (algo, group, name)
    assert build_schedule({"schedule": {}}, {}, {}).entries == []
