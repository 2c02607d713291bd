import copy

import lightning.pytorch as pl
import torch

from rlfw.batch import Batch
from rlfw.run.module import RLModule
from tests.helpers import config


def fixed_batches(n: int, size: int) -> list[Batch]:
    g = torch.Generator().manual_seed(1)
    return [
        Batch(
            obs=torch.randn(size, 4, generator=g),
            action=torch.randint(2, (size,), generator=g),
            reward=torch.randn(size, generator=g),
            next_obs=torch.randn(size, 4, generator=g),
            terminated=torch.rand(size, generator=g) < 0.2,
            discount=torch.full((size,), 0.99),
        )
        for _ in range(n)
    ]


def fit(module: RLModule, batches: list[Batch]) -> RLModule:
    """``module`` trained on fixed batches instead of the env stream."""
    module.stream = batches  # what the one training step pulls its batches from
    pl.Trainer(
        max_epochs=1, logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False
    ).fit(module)
    return module


def fit_on(batches: list[Batch], accumulate: int) -> RLModule:
    """RLModule (DQN) trained on fixed batches, ``accumulate`` of them per optimizer step.

    Adam with eps >> |g| steps by lr * g / eps: the update is proportional to the gradient (Adam's
    usual sign-like first step would turn float rounding in near-zero gradients into +-lr flips).
    """
    torch.manual_seed(0)
    overrides = ("algo=dqn", "target.period=1000", "optim.lr=1000.0", "optim.eps=1000.0")
    return fit(RLModule(config(*overrides, f"trainer.accumulate_grad_batches={accumulate}")), batches)


def test_accumulating_k_batches_equals_one_batch_of_k_times_the_size():
    small = fixed_batches(4, 8)
    big = Batch({k: torch.cat([b[k] for b in small]) for k in small[0]})
    accumulated = fit_on(small, accumulate=4)
    single = fit_on([big], accumulate=1)
    assert accumulated.progress.updates == single.progress.updates == 1
    for a, b in zip(accumulated.net.parameters(), single.net.parameters(), strict=True):
        torch.testing.assert_close(a, b)
    initial = RLModule(config("algo=dqn"))
    assert any(not torch.equal(a, b) for a, b in zip(initial.net.parameters(), single.net.parameters(), strict=True))


def test_target_rule_follows_optimizer_steps():
    module = RLModule(config("algo=dqn", "target.period=2"))
    start = copy.deepcopy(module.target_net.state_dict())
    fit(module, fixed_batches(3, 8))
    assert module.progress.updates == 3
    # copied at update 2, then the online net moved once more (update 3)
    assert any(not torch.equal(start[k], v) for k, v in module.target_net.state_dict().items())
    assert any(
        not torch.equal(a, b) for a, b in zip(module.target_net.parameters(), module.net.parameters(), strict=True)
    )
