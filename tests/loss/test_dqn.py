import copy

import torch

from rlfw.batch import Batch
from rlfw.loss.dqn import DQNLoss
from tests.helpers import TableQ


def batch(**kw) -> Batch:
    base = dict(
        obs=torch.tensor([0, 1]),
        action=torch.tensor([1, 0]),
        reward=torch.tensor([1.0, 2.0]),
        next_obs=torch.tensor([2, 2]),
        terminated=torch.tensor([False, False]),
        discount=torch.tensor([0.9, 0.9]),
    )
    return Batch({**base, **kw})


def nets():
    online = TableQ([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    return online, copy.deepcopy(online).requires_grad_(True)  # target *could* take gradient: it must not


def test_target_has_no_gradient_path():
    online, target = nets()
    DQNLoss(td_loss="mse")(batch(), online, target)["loss_td"].backward()
    assert target.table.grad is None
    assert online.table.grad is not None


def test_only_q_of_the_taken_action_gets_gradient():
    online, target = nets()
    DQNLoss(td_loss="mse")(batch(), online, target)["loss_td"].backward()
    grad = online.table.grad
    assert grad[0, 1] != 0 and grad[1, 0] != 0  # the taken actions
    assert grad[0, 0] == 0 and grad[1, 1] == 0  # the others: exactly zero
    assert torch.all(grad[2] == 0)  # the next state is only read through the target


def test_td_target_value_and_mse_gradient():
    online, target = nets()
    b = batch()
    out = DQNLoss(td_loss="mse")(b, online, target)
    y = torch.tensor([1.0 + 0.9 * 7.0, 2.0 + 0.9 * 7.0])
    q = torch.tensor([2.0, 3.0])
    torch.testing.assert_close(b.signals["td_error"], q - y)  # the priorities' signal, apart from the terms
    assert set(out) == {"loss_td", "q_taken"}
    out["loss_td"].backward()
    torch.testing.assert_close(online.table.grad[[0, 1], [1, 0]], (q - y) / 2)  # d(mean 1/2 td^2)/dq


def test_terminal_does_not_bootstrap_truncated_does():
    online, target = nets()
    # A truncated step is not terminal: the replay stores terminated=False for it, so it bootstraps.
    b = batch(terminated=torch.tensor([True, False]))
    DQNLoss()(b, online, target)
    y = torch.tensor([1.0, 2.0 + 0.9 * 7.0])
    torch.testing.assert_close(b.signals["td_error"], torch.tensor([2.0, 3.0]) - y)


def test_clip_delta_clips_each_samples_gradient():
    online, target = nets()
    loss = DQNLoss(td_loss="huber", clip_delta=1.5)
    b = batch()
    out = loss(b, online, target)
    out["loss_td"].backward()
    clipped = b.signals["td_error"].clamp(-1.5, 1.5)
    torch.testing.assert_close(online.table.grad[[0, 1], [1, 0]], clipped / 2)


def test_importance_weights_scale_each_sample():
    online, target = nets()
    b = batch(weight=torch.tensor([0.5, 0.0]))
    out = DQNLoss(td_loss="mse")(b, online, target)
    out["loss_td"].backward()
    assert online.table.grad[1, 0] == 0  # weight 0: no gradient
    torch.testing.assert_close(online.table.grad[0, 1], 0.5 * b.signals["td_error"][0] / 2)
