"""The population's decisions: first values in their ranges, truncation selection, explore by factors
or a new draw, a failed member replaced; each a pure function of the scores and the seeded generation."""

import re

import numpy as np
import pytest

from rlfw.errors import ConfigError
from rlfw.pbt import folders
from rlfw.pbt.population import Member, Population, exploit_and_explore, first_members, ranked
from rlfw.pbt.settings import read_settings

NODE = {
    "population": 4,
    "interval": 1000,
    "metric": "eval/return_mean",
    "mode": "max",
    "quantile": 0.25,
    "perturb": [0.8, 1.2],
    "resample_probability": 0.0,
    "on_failure": "replace",
    "seed": 3,
    "params": {"optim": {"lr": {"low": 1e-4, "high": 1e-2, "log": True}}, "target.period": {"choices": [1, 8, 32]}},
}


def test_the_first_members_draw_their_values_in_range_and_take_seeds_by_slot():
    settings = read_settings(NODE)
    members = first_members(settings)
    assert [m.seed for m in members] == [12, 13, 14, 15]  # seed x population + slot
    assert all(1e-4 <= m.values()["optim.lr"] <= 1e-2 and m.values()["target.period"] in (1, 8, 32) for m in members)
    assert [m.schedule for m in first_members(settings)] == [m.schedule for m in members]  # seeded


def test_the_bottom_member_copies_a_top_one_and_perturbs_its_values():
    settings = read_settings(NODE)
    members = first_members(settings)
    scores = [10.0, 40.0, 20.0, 30.0]
    after = exploit_and_explore(settings, members, scores, generation=0, at=1024)
    assert ranked(scores, "max") == [1, 3, 2, 0] and ranked(scores, "min") == [0, 2, 3, 1]
    copy = after[0]
    assert copy.copied_from == 1 and copy.seed == members[1].seed  # the checkpoint carries the source's generators
    lr = members[1].schedule["optim.lr"][0]
    assert copy.schedule["optim.lr"] == {
        0: lr,
        1024: pytest.approx(lr * 0.8) if copy.values()["optim.lr"] < lr else pytest.approx(lr * 1.2),
    }
    period = members[1].values()["target.period"]
    neighbours = (
        {1: {8}, 8: {1, 32}, 32: {8}}[period] | ({1} if period == 1 else set()) | ({32} if period == 32 else set())
    )
    assert copy.values()["target.period"] in neighbours  # a choice moves to a neighbour (or stays at an end)
    assert [m.schedule for m in after[1:]] == [m.schedule for m in members[1:]]  # the others go on as they were
    assert exploit_and_explore(settings, members, scores, 0, 1024)[0].schedule == copy.schedule  # the same decision


def test_an_integer_moves_by_at_least_one_and_stays_in_its_range():
    from rlfw.pbt.settings import Space

    space = Space("target.period", low=1.0, high=4.0, integer=True)
    rng = np.random.default_rng(0)
    assert space.perturb(1, (1.2,), rng) == 2 and space.perturb(2, (0.8,), rng) == 1  # not stuck by rounding
    assert space.perturb(4, (1.2,), rng) == 4 and space.perturb(1, (0.8,), rng) == 1  # kept in [1, 4]
    assert space.perturb(3, (2.0,), rng) == 4


def test_a_failed_member_is_replaced_and_a_new_draw_stays_in_range():
    settings = read_settings({**NODE, "resample_probability": 1.0})
    members = first_members(settings)
    after = exploit_and_explore(settings, members, [None, None, 20.0, 30.0], generation=2, at=3000)
    assert {m.slot for m in after if m.copied_from is not None} == {0, 1}  # every failed member, past the quantile
    assert all(m.copied_from == 3 for m in after if m.copied_from is not None)  # the top quantile: one member
    assert all(1e-4 <= m.schedule["optim.lr"][3000] <= 1e-2 for m in after if m.copied_from is not None)


def test_the_record_reads_back_with_its_env_steps_as_numbers(tmp_path):
    members = [Member(0, 5, {"optim.lr": {0: 0.1, 2048: 0.2}}, copied_from=1)]
    Population(members, generation=2, phase="exploit", next=members, history=[{"generation": 0}]).save(tmp_path)
    back = Population.load(tmp_path)
    assert back is not None and back.members == members and back.next == members and back.phase == "exploit"


def test_a_copy_is_swapped_in_whole_whichever_rename_a_stop_came_between(tmp_path):
    source = tmp_path / "member_1" / "checkpoints"
    source.mkdir(parents=True)
    (source / "env_steps=000000001024.ckpt").write_text("weights")
    (source / "env_steps=000000001024.replay").write_text("replay")
    (source / "last.ckpt").hardlink_to(source / "env_steps=000000001024.ckpt")
    (tmp_path / "member_1" / "metrics.csv").write_text("step\n1024\n")
    (tmp_path / "member_0").mkdir()
    (tmp_path / "member_0" / "metrics.csv").write_text("its own\n")
    folders.stage_copy(tmp_path, source=1, target=0)
    (tmp_path / "member_0").rename(tmp_path / folders.STAGING / "member_0.old")  # stopped between the renames
    folders.swap_in(tmp_path, 0)
    folders.swap_in(tmp_path, 0)  # again, as a resumed search does: nothing left to swap
    folders.clear_staging(tmp_path)
    copied = tmp_path / "member_0"
    assert (copied / "metrics.csv").read_text() == "step\n1024\n" and (
        copied / "checkpoints" / "last.ckpt"
    ).read_text() == "weights"
    assert (copied / "checkpoints" / "env_steps=000000001024.replay").is_file() and not (
        tmp_path / folders.STAGING
    ).exists()


@pytest.mark.parametrize(
    ("change", "line"),
    [
        ({"population": 1}, "hydra.sweeper.population=1: members, >= 2"),
        ({"quantile": 0.6}, "hydra.sweeper.quantile=0.6: the share copied each generation, in (0, 0.5]"),
        ({"quantile": 0.1}, "hydra.sweeper.quantile=0.1: copies no member of 4 (population x quantile < 1)"),
        ({"metric": "train/loss"}, "hydra.sweeper.metric='train/loss': a metric every run logs: eval/return_mean"),
        ({"params": {"optim.lr": {"low": 0.0, "high": 1.0, "log": True}}}, "a log-uniform range needs low > 0"),
        ({"populaton": 3}, "hydra.sweeper.populaton: unknown key (did you mean population?)"),
    ],
)
def test_bad_settings_are_one_line(change, line):
    with pytest.raises(ConfigError, match=re.escape(line)):
        read_settings({**NODE, **change})
