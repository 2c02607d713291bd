"""rlfw.run.update on its own, outside Lightning: the target rule follows the optimizer steps (TD3's only
with its delayed actor), clipping uses the norm the non-finite check took, a non-finite loss or gradient
drops the update, and the accumulation window steps once per ``accumulate`` batches."""

import copy

import pytest
import torch

from rlfw.batch import Batch
from rlfw.config.build import build_parts
from rlfw.run import update as update_module
from rlfw.run.update import Learner, update
from tests.helpers import SMALL_SAC, config


def learner(*overrides: str, **options) -> Learner:
    parts = build_parts(config(*overrides))
    return Learner(
        net=parts.net,
        target_net=parts.target_net,
        loss=parts.loss,
        target_rule=parts.target,
        optimizer=parts.optim.build(parts.net, parts.loss),
        scheduler=None,
        backward=torch.Tensor.backward,
        feedback=lambda batch: None,
        **options,
    )


def box_batch(n: int = 16) -> Batch:
    """Pendulum-shaped transitions: 3-dim observations, 1-dim actions in [-2, 2]."""
    return Batch(
        obs=torch.randn(n, 3), action=torch.rand(n, 1) * 4 - 2, reward=torch.randn(n), next_obs=torch.randn(n, 3),
        terminated=torch.zeros(n, dtype=torch.bool), discount=torch.full((n,), 0.98),
    )  # fmt: skip


def cartpole_batch(n: int = 16) -> Batch:
    return Batch(
        obs=torch.randn(n, 4), action=torch.randint(2, (n,)), reward=torch.randn(n), next_obs=torch.randn(n, 4),
        terminated=torch.zeros(n, dtype=torch.bool), discount=torch.full((n,), 0.99),
    )  # fmt: skip


def moved(before: dict[str, torch.Tensor], net: torch.nn.Module) -> bool:
    return any(not torch.equal(before[k], v) for k, v in net.state_dict().items())


@pytest.mark.parametrize("algo, delay", [("td3", 2), ("ddpg", 1)])
def test_td3s_targets_move_only_with_its_delayed_actor_and_ddpgs_every_update(algo, delay):
    parts = learner(f"algo={algo}", "env=pendulum", *SMALL_SAC)
    for number in range(1, 5):
        before = copy.deepcopy(parts.target_net.state_dict())
        result = update(parts, box_batch(), number)
        assert result.stepped
        assert ("loss_actor" in result.terms) == (number % delay == 0)
        assert moved(before, parts.target_net) == (number % delay == 0), number


def test_clipping_uses_the_checks_norm_and_matches_torchs_own(monkeypatch):
    """Clipped by the norm the non-finite check took: the same parameters as torch's clip_grad_norm_,
    which takes the norm again."""
    args = ("algo=dqn", "trainer.gradient_clip_val=0.05")
    batches = [cartpole_batch() for _ in range(3)]
    torch.manual_seed(1)
    ours = learner(*args, clip=0.05)
    for number, batch in enumerate(batches, 1):
        update(ours, batch, number)
    monkeypatch.setattr(
        update_module, "clip", lambda lrn, limit, norm: torch.nn.utils.clip_grad_norm_(lrn.params, limit)
    )
    torch.manual_seed(1)
    torchs = learner(*args, clip=0.05)
    for number, batch in enumerate(batches, 1):
        update(torchs, batch, number)
    assert all(torch.equal(a, b) for a, b in zip(ours.net.parameters(), torchs.net.parameters(), strict=True))
    assert moved(learner(*args).net.state_dict(), ours.net)  # it trained


def test_a_non_finite_loss_drops_the_update_and_names_its_term():
    parts = learner("algo=dqn")
    before = copy.deepcopy(parts.net.state_dict())
    bad = cartpole_batch()
    bad["reward"][0] = float("nan")
    result = update(parts, bad, 1)
    assert not result.stepped and result.nonfinite == "loss_td"
    assert not moved(before, parts.net) and all(p.grad is None for p in parts.net.parameters())
    assert update(parts, cartpole_batch(), 1).stepped  # the next finite update steps


def test_the_optimizer_steps_once_per_accumulation_window():
    parts = learner("algo=dqn", accumulate=3)
    steps = [update(parts, cartpole_batch(), 1).stepped for _ in range(6)]
    assert steps == [False, False, True, False, False, True]
