"""Acting through a driver: a feed-forward network carries nothing and runs only its acting forward; a
recurrent one carries each env's state, forgets it where an episode ended, and resumes it from a state dict."""

import numpy as np
import torch

from rlfw.network import build_network
from rlfw.network.driver import Driver, Stepping, driver
from tests.helpers import spec

MLP = {"name": "mlp", "hidden": [8]}


def test_a_feed_forward_driver_runs_the_actor_alone_and_carries_nothing():
    net = build_network({"encoder": MLP, "head": {"name": "actor_critic"}}, spec(3, 2))
    acting = driver(net, 4)
    assert type(acting) is Driver
    out = acting(torch.randn(4, 3))
    assert "logits" in out and "value" not in out  # V(s) comes from one critic forward per rollout
    assert acting.before() == acting.after() == acting.state_dict() == {} and acting.state is None
    acting.start(np.ones((4, 5)), torch.ones(4, dtype=torch.bool))  # predict's state: ignored, as SB3 does
    assert acting.state is None and acting.initial(4) == ()


def test_a_recurrent_driver_carries_each_envs_state_and_forgets_it_at_an_episode_start():
    net = build_network({"encoder": MLP, "head": {"name": "recurrent_actor_critic", "hidden": 4}}, spec(3, 2))
    acting = driver(net, 2)
    assert type(acting) is Stepping
    obs = torch.randn(2, 3)
    first = acting.before()
    assert not first["state"].any() and first["episode_start"].all()
    acting(obs)
    after = acting.after()["next_state"]
    assert after.any() and np.array_equal(after, acting.state)
    saved = {k: v.clone() for k, v in acting.state_dict().items()}
    acting.ended(np.array([True, False]))
    carried = acting.before()
    assert carried["episode_start"].tolist() == [True, False] and np.array_equal(carried["state"], after)
    stepped = acting(obs)  # env 0 starts from zeros again: it acts as at the first step
    fresh = driver(net, 2)(obs)
    torch.testing.assert_close(stepped["logits"][0], fresh["logits"][0])
    assert not torch.allclose(stepped["logits"][1], fresh["logits"][1])
    resumed = driver(net, 2)
    resumed.load_state_dict(saved)
    assert np.array_equal(resumed.state, after)
