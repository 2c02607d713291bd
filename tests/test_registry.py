import logging

import pytest

from rlfw.errors import ConfigError
from rlfw.plugins import ORIGIN
from rlfw.registry import _REGISTRY, CONF_DIRS, KINDS, build, names, register
from tests.helpers import ROOT


@pytest.mark.parametrize("kind", KINDS)
def test_every_registered_option_has_a_same_named_yaml(kind):
    conf = ROOT / "conf" / CONF_DIRS[kind]
    yaml_names = {p.stem for p in conf.glob("*.yaml")}
    own = [name for name in names(kind) if (kind, name) not in ORIGIN]  # installed plugins ship their own conf/
    assert set(own) <= yaml_names, f"missing yaml in conf/{CONF_DIRS[kind]}"
    for name in own:
        assert f"name: {name}\n" in (conf / f"{name}.yaml").read_text()


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(ConfigError, match=r"^target.name='soft': not a registered target; valid: hard, none, polyak$"):
        build("target", {"name": "soft"}, "target")


def test_values_are_checked_against_the_typed_signature():
    with pytest.raises(ConfigError, match=r"^target.tau='0.1': expected float$"):
        build("target", {"name": "polyak", "tau": "0.1"}, "target")
    with pytest.raises(ConfigError, match=r"^target.period=True: expected int$"):
        build("target", {"name": "hard", "period": True}, "target")
    with pytest.raises(
        ConfigError, match=r"^target.taw: unknown key for target=polyak \(did you mean tau\?\); valid keys: parts, tau$"
    ):
        build("target", {"name": "polyak", "taw": 0.1}, "target")
    assert build("target", {"name": "polyak", "tau": 1}, "target").tau == 1  # an int is a fine float


def test_a_key_of_a_sibling_option_is_dropped_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="rlfw"):
        rule = build("target", {"name": "polyak", "tau": 0.5, "period": 100}, "target")
    assert rule.tau == 0.5
    assert "ignoring target.period=100: it is a key of target=hard, not of target=polyak" in caplog.text


@pytest.fixture
def scratch_target():
    yield "every_other_test"
    _REGISTRY["target"].pop("every_other_test", None)  # leave the registry as the other tests expect


def test_register_adds_an_option_and_refuses_a_clash(scratch_target):
    @register("target", scratch_target)
    class EveryOther:
        uses_target = True

        def __init__(self, offset: int = 0):
            self.offset = offset

    assert "every_other_test" in names("target")
    assert build("target", {"name": "every_other_test", "offset": 3}, "target").offset == 3
    with pytest.raises(ValueError, match="already registered"):
        register("target", "hard")(EveryOther)


def test_a_run_supplied_value_cannot_be_set_in_the_config():
    with pytest.raises(ConfigError, match=r"^replay.total_env_steps: unknown key for replay=rollout"):
        build("replay", {"name": "rollout", "total_env_steps": 5}, "replay", num_envs=1, gamma=0.9, total_env_steps=10)
