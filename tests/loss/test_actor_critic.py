import torch
from torch import nn

from rlfw.batch import Batch
from rlfw.loss.a2c import A2CLoss
from rlfw.loss.actor_critic import value_loss
from rlfw.loss.ppo import PPOLoss
from rlfw.network.encoder.mlp import MLP
from rlfw.network.head.actor_critic import ActorCritic
from tests.helpers import spec


def net_and_batch():
    s = spec(obs_dim=3, actions=4)
    net = ActorCritic(s, lambda: MLP(s, [8]), shared=True)
    obs = torch.randn(16, 3)
    with torch.no_grad():
        out = net(obs)
        dist = torch.distributions.Categorical(logits=out["logits"])
        action = dist.sample()
        logp = dist.log_prob(action)
    batch = Batch(
        obs=obs,
        action=action,
        logp=logp,
        value=out["value"],
        advantage=torch.randn(16),
        returns=torch.randn(16),
    )
    return net, batch


def policy_grad(loss: nn.Module, net: nn.Module, batch: Batch) -> torch.Tensor:
    net.zero_grad()
    loss(batch, net)["loss_policy"].backward()
    return torch.cat([p.grad.flatten() for p in net.actor.parameters()])


def test_ppo_at_ratio_one_has_the_a2c_policy_gradient():
    net, batch = net_and_batch()  # batch.logp is the current policy's: ratio == 1
    ppo = policy_grad(PPOLoss(clip=0.2), net, batch)
    a2c = policy_grad(A2CLoss(), net, batch)
    assert ppo.abs().sum() > 0
    torch.testing.assert_close(ppo, a2c)


def test_ppo_clipped_ratio_gives_no_policy_gradient():
    net, batch = net_and_batch()
    batch["logp"] = batch.logp - 1.0  # ratio = e > 1 + clip
    batch["advantage"] = torch.ones(16)  # positive advantage: the clipped branch is the minimum
    out = PPOLoss(clip=0.2)(batch, net)
    assert out["clip_fraction"] == 1.0
    out["loss_policy"].backward()
    assert all(p.grad is None or torch.all(p.grad == 0) for p in net.actor.parameters())


def test_value_clipping_is_pessimistic():
    value, returns, old = torch.tensor([2.0]), torch.tensor([3.0]), torch.tensor([0.0])
    torch.testing.assert_close(value_loss(value, returns), torch.tensor(0.5))
    # clipped value 0 + 0.5 = 0.5: its error (2.5) is larger, and the max takes it
    torch.testing.assert_close(value_loss(value, returns, old, clip=0.5), torch.tensor(0.5 * 2.5**2))


def test_the_clipped_terms_value_and_gradient_are_those_of_the_paper_s_min_and_max(monkeypatch):
    torch.manual_seed(0)
    advantage, clip = torch.randn(256), 0.2
    log_ratio = (torch.randn(256) * 0.3).requires_grad_()  # ratios on both sides of the range and inside it
    value, returns, old = (torch.randn(256) * 2).requires_grad_(), torch.randn(256), torch.randn(256)
    batch = Batch(advantage=advantage, logp=torch.zeros(256), returns=returns, value=old)

    class Read:  # what read_policy gives PPOLoss, without a network
        def __init__(self) -> None:
            self.logp, self.entropy, self.rows, self.out = log_ratio, torch.tensor(0.0), None, {"value": value}

    monkeypatch.setattr("rlfw.loss.ppo.read_policy", lambda *_: Read())
    out = PPOLoss(clip=clip, clip_value=clip)(batch, None)
    grads = torch.autograd.grad(out["loss_policy"] + out["loss_value"], (log_ratio, value))
    ratio = log_ratio.exp()
    paper_policy = -torch.min(ratio * advantage, ratio.clamp(1 - clip, 1 + clip) * advantage).mean()
    clipped_value = old + (value - old).clamp(-clip, clip)
    paper_value = 0.5 * 0.5 * torch.max((value - returns) ** 2, (clipped_value - returns) ** 2).mean()
    torch.testing.assert_close(out["loss_policy"] + out["loss_value"], paper_policy + paper_value)
    for got, want in zip(grads, torch.autograd.grad(paper_policy + paper_value, (log_ratio, value)), strict=True):
        torch.testing.assert_close(got, want)


def test_target_kl_flags_the_early_stop():
    net, batch = net_and_batch()
    terms = PPOLoss()(batch, net)
    assert "stop_epochs" not in batch.signals and "stop_epochs" not in terms
    batch["logp"] = batch.logp - 0.5
    terms = PPOLoss(target_kl=0.01)(batch, net)
    assert bool(batch.signals["stop_epochs"]) and "stop_epochs" not in terms  # a signal, not a term


def test_entropy_term_is_minus_ent_coef_times_entropy():
    net, batch = net_and_batch()
    out = A2CLoss(ent_coef=0.1)(batch, net)
    torch.testing.assert_close(out["loss_entropy"], -0.1 * out["entropy"])
    assert out["entropy"] > 0


def test_rows_that_do_not_act_are_out_of_the_policy_terms():
    """A row that did not act (the batch's ``acting``: a turn-based game's seat off its turn, an agent that
    left) made no choice: PPO and A2C give the terms of the rows that acted, as if the others were not in
    the batch."""
    net, batch = net_and_batch()
    batch["logp"] = batch.logp - 0.1  # ratio != 1: the metrics are not constants
    acting = torch.ones(16, dtype=torch.bool)
    acting[8:] = False  # rows 8.. do not act
    chose = Batch({k: v[:8] for k, v in batch.items()})
    for loss in (PPOLoss(ent_coef=0.01), A2CLoss(ent_coef=0.01)):
        whole = loss(Batch(batch, acting=acting), net)
        alone = loss(chose, net)
        assert set(whole) == set(alone)
        for term in alone:
            torch.testing.assert_close(whole[term], alone[term])
