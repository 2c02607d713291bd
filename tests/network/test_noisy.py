"""Noisy linear layers: the factorised-noise equation, fresh noise per forward while training, the mean
weights in eval mode, and greedy evaluation in eval mode."""

import gymnasium as gym
import numpy as np
import torch
import torch.nn.functional as F

from rlfw.env.spec import EnvSpec
from rlfw.network import build_network
from rlfw.network.noisy import NoisyLinear
from rlfw.run.evaluate import greedy


def f(eps: torch.Tensor) -> torch.Tensor:
    return eps.sign() * eps.abs().sqrt()


def test_a_training_forward_is_the_factorised_noise_equation_with_fresh_noise_each_time():
    layer, x = NoisyLinear(5, 3, sigma0=0.5), torch.randn(4, 5)
    torch.manual_seed(7)
    out = layer(x)
    torch.manual_seed(7)
    eps_in, eps_out = f(torch.randn(5)), f(torch.randn(3))
    weight = layer.weight_mu + layer.weight_sigma * torch.outer(eps_out, eps_in)
    torch.testing.assert_close(out, F.linear(x, weight, layer.bias_mu + layer.bias_sigma * eps_out))
    torch.testing.assert_close(layer.weight_sigma, torch.full((3, 5), 0.5 / 5**0.5))  # sigma0 / sqrt(inputs)
    assert not torch.equal(layer(x), layer(x))  # a new draw at every forward


def test_eval_mode_uses_the_mean_weights():
    layer, x = NoisyLinear(5, 3).eval(), torch.randn(4, 5)
    torch.testing.assert_close(layer(x), F.linear(x, layer.weight_mu, layer.bias_mu))


def test_greedy_evaluation_acts_with_the_mean_weights_and_leaves_the_net_training():
    spec = EnvSpec("Test-v0", (3,), gym.spaces.Discrete(4), None)
    net = build_network({"encoder": {"name": "mlp", "hidden": [8]}, "head": {"name": "q", "noisy": True}}, spec)
    obs = np.random.default_rng(0).normal(size=(64, 3)).astype(np.float32)
    policy = greedy(net, torch.device("cpu"))
    first, second = policy(obs), policy(obs)
    np.testing.assert_array_equal(first, second)
    with torch.no_grad():
        np.testing.assert_array_equal(first, net.eval()(torch.from_numpy(obs))["q"].argmax(1).numpy())
    net.train()
    policy(obs)
    assert net.training  # evaluation gave the training mode back
