"""rlfw.testing's contract checks over every built-in option (plugin authors run the same)."""

import pytest
import torch

from rlfw import testing
from rlfw.config.fit import check_fit
from rlfw.errors import ConfigError
from rlfw.loss.dqn import DQNLoss
from rlfw.network.head.q import QNetwork
from rlfw.plugins import ORIGIN
from rlfw.registry import _REGISTRY, options, register
from rlfw.target.hard import HardUpdate
from tests.helpers import config

CHECKS = {
    "head": testing.check_head,
    "explore": testing.check_explore,
    "loss": testing.check_loss,
    "replay": testing.check_replay,
    "target": testing.check_target,
}
BUILTIN = [(kind, name) for kind in CHECKS for name in sorted(options(kind)) if (kind, name) not in ORIGIN]


@pytest.mark.parametrize("kind, name", BUILTIN, ids=[f"{kind}={name}" for kind, name in BUILTIN])
def test_every_builtin_option_keeps_its_contract(kind, name):
    CHECKS[kind](name)


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


class Undeclared(torch.nn.Module):  # a DQN loss in all but name: it does not subclass LossHead
    needs = DQNLoss.needs
    needs_batch = DQNLoss.needs_batch
    needs_target = True
    forward = DQNLoss.forward


class GradTarget(HardUpdate):
    def step(self, online, target, update):
        target.requires_grad_(True)


@pytest.mark.parametrize(
    "kind, cls, check, message",
    [
        (
            "loss",
            UndeclaredField,
            testing.check_loss,
            "reads a batch field it does not declare in needs_batch: batch has no 'discount'",
        ),
        ("loss", LeakyMetric, testing.check_loss, "the metric q_all carries a gradient; detach it"),
        ("head", ExtraOutput, testing.check_head, r"declares outputs \['q'\] but returns \['features', 'q'\]"),
        ("target", GradTarget, testing.check_target, "the target's parameters require grad"),
        ("loss", Undeclared, testing.check_loss, "Undeclared must subclass rlfw.loss.contract.LossHead"),
    ],
)
def test_a_component_that_breaks_its_contract_fails_its_check(scratch, kind, cls, check, message):
    scratch(kind, "broken_test", cls)
    with pytest.raises(AssertionError, match=message):
        check("broken_test")


def test_a_run_refuses_an_option_that_does_not_declare_its_contract(scratch):
    scratch("loss", "undeclared_test", Undeclared)
    with pytest.raises(
        ConfigError, match=r"^loss=undeclared_test: Undeclared does not subclass rlfw.loss.contract.LossHead"
    ):
        check_fit(config("algo=dqn", "loss.name=undeclared_test"))
