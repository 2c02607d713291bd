"""rlfw.testing's contract checks over every built-in option (plugin authors run the same)."""

import pytest

from rlfw import testing
from rlfw.loss.dqn import DQNLoss
from rlfw.network.head.q import QNetwork
from rlfw.plugins import ORIGIN
from rlfw.registry import _REGISTRY, options, register
from rlfw.target.hard import HardUpdate


def builtin(kind: str) -> list[str]:
    return [name for name in sorted(options(kind)) if (kind, name) not in ORIGIN]


@pytest.mark.parametrize("name", builtin("head"))
def test_head(name):
    testing.check_head(name)


@pytest.mark.parametrize("name", builtin("explore"))
def test_explore(name):
    testing.check_explore(name)


@pytest.mark.parametrize("name", builtin("loss"))
def test_loss(name):
    testing.check_loss(name)


@pytest.mark.parametrize("name", builtin("replay"))
def test_replay(name):
    testing.check_replay(name)


@pytest.mark.parametrize("name", builtin("target"))
def test_target(name):
    testing.check_target(name)


@pytest.fixture
def scratch():
    """Registers test-only options; removes them afterwards."""
    added = []

    def add(kind, name, cls):
        register(kind, name)(cls)
        added.append((kind, name))

    yield add
    for kind, name in added:
        _REGISTRY[kind].pop(name)


class UndeclaredField(DQNLoss):
    needs_batch = DQNLoss.needs_batch - {"discount"}


class LeakyMetric(DQNLoss):
    def forward(self, batch, net, target):
        return {**super().forward(batch, net, target), "q_all": net(batch.obs)["q"].mean()}


class ExtraOutput(QNetwork):
    def forward(self, obs):
        return {**super().forward(obs), "features": obs}


class GradTarget(HardUpdate):
    def step(self, online, target, update):
        target.requires_grad_(True)


@pytest.mark.parametrize(
    "kind, cls, check, message",
    [
        ("loss", UndeclaredField, testing.check_loss, "reads a batch field it does not declare in needs_batch: batch has no 'discount'"),
        ("loss", LeakyMetric, testing.check_loss, "the metric q_all carries a gradient; detach it"),
        ("head", ExtraOutput, testing.check_head, r"declares outputs \['q'\] but returns \['features', 'q'\]"),
        ("target", GradTarget, testing.check_target, "the target's parameters require grad"),
    ],
)
def test_a_component_that_breaks_its_contract_fails_its_check(scratch, kind, cls, check, message):
    scratch(kind, "broken_test", cls)
    with pytest.raises(AssertionError, match=message):
        check("broken_test")
