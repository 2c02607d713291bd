import copy

import torch

from rlfw.target.hard import HardUpdate
from rlfw.target.polyak import PolyakUpdate


def pair():
    online = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    target = copy.deepcopy(online)
    with torch.no_grad():
        for p in online.parameters():
            p.add_(torch.randn_like(p))
    online[1].running_mean.add_(1.0)
    return online, target


def state(m):
    return {k: v.clone() for k, v in m.state_dict().items()}


def test_polyak_with_tau_one_equals_hard_copy():
    online, target = pair()
    hard_target = copy.deepcopy(target)
    PolyakUpdate(tau=1.0).step(online, target, 1)
    HardUpdate(period=1).step(online, hard_target, 1)
    for k, v in state(hard_target).items():
        torch.testing.assert_close(state(target)[k], v)


def test_polyak_moves_a_tau_fraction():
    online, target = pair()
    before = state(target)
    PolyakUpdate(tau=0.1).step(online, target, 1)
    w = "0.weight"
    torch.testing.assert_close(state(target)[w], 0.9 * before[w] + 0.1 * online.state_dict()[w])


def test_hard_copies_only_every_period():
    online, target = pair()
    before = state(target)
    rule = HardUpdate(period=3)
    for update in (1, 2):
        rule.step(online, target, update)
    torch.testing.assert_close(state(target)["0.weight"], before["0.weight"])
    rule.step(online, target, 3)
    torch.testing.assert_close(state(target)["0.weight"], online.state_dict()["0.weight"])


def test_hard_with_tau_below_one_blends_every_period_like_polyak():
    online, target = pair()
    polyak_target, before = copy.deepcopy(target), state(target)
    rule = HardUpdate(period=2, tau=0.1)
    rule.step(online, target, 1)
    torch.testing.assert_close(state(target)["0.weight"], before["0.weight"])  # not yet
    rule.step(online, target, 2)
    PolyakUpdate(tau=0.1).step(online, polyak_target, 1)
    for k, v in state(polyak_target).items():
        torch.testing.assert_close(state(target)[k], v)
