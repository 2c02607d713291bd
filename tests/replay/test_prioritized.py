import torch

from rlfw.clock import Clock
from rlfw.replay.prioritized import PrioritizedReplay
from rlfw.replay.sum_tree import SumTree
from tests.helpers import spec
from tests.replay.test_uniform import step


def test_sum_tree_samples_in_proportion_to_priority():
    tree = SumTree(5)
    tree.set(torch.arange(5), torch.tensor([0.0, 1.0, 2.0, 0.0, 7.0]))
    assert tree.total == 10.0
    leaves = tree.find(torch.rand(100_000) * tree.total)
    freq = torch.bincount(leaves, minlength=5).double() / 100_000
    torch.testing.assert_close(freq, torch.tensor([0.0, 0.1, 0.2, 0.0, 0.7], dtype=torch.float64), atol=0.01, rtol=0)
    assert tree.find(torch.tensor([10.0 - 1e-12])).item() == 4  # never an empty leaf at the edge


def test_small_and_large_updates_keep_every_node_the_sum_of_its_children():
    """Updates of a few leaves walk up in Python, larger ones a level at a time: both leave the tree
    exact, zeros included."""
    tree, leaves = SumTree(300), torch.zeros(300, dtype=torch.float64)
    g = torch.Generator().manual_seed(0)
    for size in [1, 2, 8, 9, 64, 3, 300, 5]:
        index = torch.randperm(300, generator=g)[:size]
        priority = torch.rand(size, generator=g, dtype=torch.float64) * (torch.rand(size, generator=g) > 0.3)
        tree.set(index, priority)
        leaves[index] = priority
        node = tree.tree
        assert (node[tree.leaves : tree.leaves + 300] == leaves.numpy()).all()
        parents = torch.arange(1, tree.leaves)
        assert (node[parents] == node[2 * parents] + node[2 * parents + 1]).all()


def test_priorities_follow_td_errors_and_weights_correct_them():
    r = PrioritizedReplay(
        spec=spec(obs_dim=1),
        num_envs=1,
        gamma=0.9,
        total_env_steps=100,
        capacity=8,
        batch_size=4,
        learning_starts=0,
        alpha=1.0,
        beta=1.0,
    )
    for i in range(4):
        r.add(step(i))
    b = r.sample()
    b.signal("td_error", torch.zeros(4))
    r.feedback(b)  # every sampled index gets priority eps
    r.tree.set(torch.tensor([2]), torch.tensor([1.0]))
    b = r.sample()
    assert torch.all(b.index == 2)  # all the mass is on index 2 (up to eps)
    r.tree.set(torch.arange(4), torch.tensor([1.0, 1.0, 1.0, 3.0]))
    counts = torch.bincount(torch.cat([r.sample().index for _ in range(2000)]), minlength=4)
    assert counts[3] > 2.5 * counts[0]
    b = r.sample()
    # beta = 1: w = 1 / (N P(i)), normalised by the batch max; rare samples get the larger weight
    expected = (1.0 / r.tree.get(b.index)) / (1.0 / r.tree.get(b.index)).max()
    torch.testing.assert_close(b.weight, expected.float())


def test_beta_anneals_to_one_over_the_runs_env_steps():
    r = PrioritizedReplay(
        spec=spec(obs_dim=1),
        num_envs=2,
        gamma=0.9,
        total_env_steps=10,
        capacity=20,
        batch_size=2,
        learning_starts=0,
        beta=0.4,
    )
    assert r.beta() == 0.4
    for i in range(5):
        r.add(step(i, num_envs=2))
    assert r.beta() == 0.4  # it reads the run's clock, which the collector keeps (tests/run/test_collector.py)
    r.clock = Clock(env_steps=5)
    assert r.beta() == 0.7
    r.clock = Clock(env_steps=10)
    assert r.beta() == 1.0


def test_n_step_rows_become_sampleable_once_complete():
    r = PrioritizedReplay(
        spec=spec(obs_dim=1),
        num_envs=1,
        gamma=0.9,
        total_env_steps=10,
        capacity=10,
        batch_size=2,
        learning_starts=0,
        n_step=3,
    )
    r.add(step(0))
    r.add(step(1))
    assert r.tree.total == 0
    r.add(step(2))
    assert r.tree.total == 1.0 and float(r.tree.get(torch.tensor([0]))) == 1.0
