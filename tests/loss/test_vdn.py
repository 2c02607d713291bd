import copy
import dataclasses

import pytest
import torch

from rlfw.batch import Batch
from rlfw.errors import ConfigError
from rlfw.loss.vdn import VDNLoss
from tests.helpers import MaskedTable, TableQ, spec

TWO = dataclasses.replace(spec(), agents=("agent_0", "agent_1"))


def joint_batch(**kw) -> Batch:
    """Two joint steps of two agents: rows (step 0: agent 0, agent 1), (step 1: agent 0, agent 1)."""
    base = dict(
        obs=torch.tensor([0, 1, 0, 1]),
        action=torch.tensor([1, 0, 0, 1]),
        reward=torch.tensor([1.0, 0.5, 0.0, 2.0]),
        next_obs=torch.tensor([2, 2, 1, 0]),
        terminated=torch.tensor([False, False, True, True]),
        discount=torch.tensor([0.9, 0.9, 0.9, 0.9]),
    )
    return Batch({**base, **kw})


def test_the_team_q_is_the_sum_of_the_agents_and_its_target_sums_their_max():
    online = TableQ([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    target = copy.deepcopy(online).requires_grad_(True)
    out = VDNLoss(TWO, td_loss="mse")(joint_batch(), online, target)
    q_tot = torch.tensor([2.0 + 3.0, 1.0 + 4.0])  # Q(0, 1) + Q(1, 0); Q(0, 0) + Q(1, 1)
    y = torch.tensor([1.5 + 0.9 * (7.0 + 7.0), 2.0])  # the second step ended: no bootstrap
    torch.testing.assert_close(out["loss_td"], (0.5 * (q_tot - y).pow(2)).mean())
    out["loss_td"].backward()
    assert target.table.grad is None
    grad = online.table.grad
    assert float(grad[0, 1]) == float(grad[1, 0]) == pytest.approx(float(q_tot[0] - y[0]) / 2)  # the team's, each


def test_each_agent_s_max_is_over_its_own_open_actions():
    """The observations carry each agent's open actions (the head closes the others): agent 0's best next
    action is closed, so its max is 5, not 7."""
    online = MaskedTable([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    states, open_next = joint_batch(), torch.tensor([[1.0, 0.0], [1, 1], [1, 1], [1, 1]])
    batch = joint_batch(
        obs=torch.cat([states.obs[:, None].float(), torch.ones(4, 2)], 1),
        next_obs=torch.cat([states.next_obs[:, None].float(), open_next], 1),
    )
    out = VDNLoss(TWO, td_loss="mse")(batch, online, copy.deepcopy(online))
    team = 5.0 - (1.5 + 0.9 * (5.0 + 7.0))  # the first step's team TD error; the second's: 5 - 2
    torch.testing.assert_close(out["loss_td"], torch.tensor(0.5 * (team**2 + 3.0**2) / 2))


def test_one_agent_is_refused():
    with pytest.raises(ConfigError, match=r"sums the Q values of an env's agents, and Test-v0 has one agent"):
        VDNLoss(spec())
