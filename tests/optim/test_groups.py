import pytest
import torch

from rlfw.errors import ConfigError
from rlfw.network import build_network
from rlfw.registry import build
from tests.helpers import spec

NET = {"encoder": {"name": "mlp", "hidden": [8]}, "head": {"name": "actor_critic", "shared": True}}


def test_one_param_group_per_configured_part():
    net = build_network(NET, spec())
    optim = build(
        "optim", {"name": "adam", "lr": 1e-3, "groups": {"critic": {"lr": 1e-2}, "encoder": {"lr": 1e-4}}}, "optim"
    )
    groups = {g["name"]: g for g in optim.build(net).param_groups}
    assert {n: g["lr"] for n, g in groups.items()} == {"default": 1e-3, "critic": 1e-2, "encoder": 1e-4}
    assert {id(p) for p in groups["critic"]["params"]} == {id(p) for p in net.critic.parameters()}
    assert {id(p) for p in groups["default"]["params"]} == {id(p) for p in net.actor.parameters()}


def test_per_part_rate_reaches_the_update():
    net = build_network(NET, spec())
    optim = build("optim", {"name": "rmsprop", "lr": 1e-3, "groups": {"actor": {"lr": 0.0}}}, "optim").build(net)
    before = [p.clone() for p in net.actor.parameters()]
    out = net(torch.randn(4, 4))
    (out["logits"].sum() + out["value"].sum()).backward()
    optim.step()
    assert all(torch.equal(a, b) for a, b in zip(before, net.actor.parameters(), strict=True))  # lr 0: unchanged


def test_unknown_part_lists_the_parts():
    net = build_network(NET, spec())
    optim = build("optim", {"name": "adam", "groups": {"trunk": {"lr": 1e-3}}}, "optim")
    with pytest.raises(
        ConfigError, match=r"optim.groups.trunk: not a part of this network; parts: encoder, actor, critic"
    ):
        optim.build(net)


def test_adam_uses_the_fused_kernel_except_under_mixed_precision():
    net = build_network(NET, spec())
    adam = build("optim", {"name": "adam"}, "optim")
    assert adam.build(net).defaults["fused"] is True
    mixed = adam.build(net, mixed_precision=True).defaults  # Lightning cannot clip before a fused step unscales
    assert not mixed["fused"] and mixed["foreach"] is True
    assert build("optim", {"name": "rmsprop"}, "optim").build(net).defaults["foreach"] is True
