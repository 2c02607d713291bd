import torch

from rlfw.batch import Batch
from rlfw.loss.double_dqn import DoubleDQNLoss
from rlfw.loss.dqn import DQNLoss
from tests.helpers import TableQ


def test_online_net_picks_target_net_evaluates():
    # In s'=1 the online net prefers action 0, the target net prefers action 1.
    online = TableQ([[0.0, 0.0], [10.0, 1.0]])
    target = TableQ([[0.0, 0.0], [2.0, 8.0]])
    b = Batch(
        obs=torch.tensor([0]),
        action=torch.tensor([0]),
        reward=torch.tensor([1.0]),
        next_obs=torch.tensor([1]),
        terminated=torch.tensor([False]),
        discount=torch.tensor([0.5]),
    )
    DoubleDQNLoss(td_loss="mse")(b, online, target)
    double = b.signals["td_error"]
    DQNLoss(td_loss="mse")(b, online, target)
    plain = b.signals["td_error"]
    torch.testing.assert_close(double, torch.tensor([0.0 - (1.0 + 0.5 * 2.0)]))  # Q_target(s', argmax online = 0)
    torch.testing.assert_close(plain, torch.tensor([0.0 - (1.0 + 0.5 * 8.0)]))  # max_a' Q_target(s', a')
