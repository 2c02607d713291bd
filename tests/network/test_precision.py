import typing

import gymnasium as gym
import numpy as np
import pytest
import torch

from rlfw.config.schema import Network
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.network import build_network
from rlfw.network.encoder.mlp import MLP
from rlfw.network.head.critic import Critics
from rlfw.network.precision import BF16_FROM_MACS, PRECISIONS, Precision, fp32, precision_of

VECTOR = EnvSpec("Vec-v0", (17,), gym.spaces.Box(-1, 1, (6,), np.float32), None)
SAC_NET = {
    "encoder": {"name": "mlp", "hidden": [256, 256], "activation": "relu"},
    "head": {"name": "squashed_gaussian"},
}


def machine(monkeypatch, instructions: str | None) -> None:
    monkeypatch.setattr("rlfw.network.precision.native_bf16", lambda: instructions)


@pytest.mark.parametrize("instructions", ["amx_bf16, avx512_bf16", None])
def test_auto_is_bf16_for_large_products_where_the_cpu_has_bf16_instructions(monkeypatch, instructions):
    machine(monkeypatch, instructions)
    auto, macs = Precision("auto"), 256 * 256
    acting, learning = torch.zeros(1, 256), torch.zeros(256, 256)  # one observation, a batch of 256
    assert auto.bf16_linear(acting, macs) is False
    assert 256 * macs >= BF16_FROM_MACS and auto.bf16_linear(learning, macs) is (instructions is not None)
    assert auto.bf16_linear(torch.zeros(64, 64), 64 * 64) is False  # PPO's 64x64 minibatch: fp32 is faster
    assert auto.conv(84, 84) is (instructions is not None) and auto.conv(10, 10) is False
    assert not Precision("fp32").bf16_linear(learning, macs) and not Precision("fp32").conv(84, 84)
    forced = Precision("bf16")
    assert forced.bf16_linear(acting, macs) and forced.conv(10, 10)
    assert forced.emulated is (instructions is None) and not auto.emulated


@pytest.mark.parametrize(
    "setting, instructions, said",
    [
        ("auto", "avx512_bf16", "network.precision=auto: bf16 on the CPU (avx512_bf16) for linear layers from"),
        ("auto", None, "network.precision=auto: fp32 (no bf16 instructions found)"),
        ("bf16", None, "network.precision=bf16: this CPU has no bf16 instructions, so torch emulates them"),
        ("fp32", "avx512_bf16", "network.precision=fp32"),
    ],
)
def test_the_run_logs_what_the_setting_chose_on_this_machine(monkeypatch, setting, instructions, said):
    machine(monkeypatch, instructions)
    assert Precision(setting).describe().startswith(said)


def test_an_unknown_setting_is_refused_naming_the_valid_ones():
    with pytest.raises(ConfigError, match=r"network.precision='fp16': one of auto .*, fp32, bf16"):
        Precision("fp16")


def test_bf16_layers_give_fp32_outputs_and_gradients_close_to_fp32():
    torch.manual_seed(0)
    net = build_network({**SAC_NET, "precision": "bf16"}, VECTOR)
    obs, action = torch.randn(256, 17), torch.rand(256, 6) * 2 - 1
    precision = precision_of(net)
    assert precision is not None and precision.setting == "bf16"
    with fp32(net):
        want_out, want_q = net(obs), net.q_sa(obs, action)
        sum(t.sum() for t in (want_out["mean"], want_out["log_std"], want_q)).backward()
    want_grads = [p.grad.clone() for p in net.parameters()]
    net.zero_grad()
    out, q = net(obs), net.q_sa(obs, action)
    sum(t.sum() for t in (out["mean"], out["log_std"], q)).backward()
    assert all(t.dtype == torch.float32 for t in (out["mean"], out["log_std"], q))
    assert not torch.equal(q, want_q)  # bf16 arithmetic ran inside
    torch.testing.assert_close(q, want_q, rtol=0.05, atol=0.02)  # bf16 keeps 8 bits of mantissa
    torch.testing.assert_close(out["mean"], want_out["mean"], rtol=0.05, atol=0.02)
    for p, want in zip(net.parameters(), want_grads, strict=True):
        assert p.dtype == p.grad.dtype == torch.float32  # weights and gradients stay fp32
        assert torch.linalg.vector_norm(p.grad - want) <= 0.05 * torch.linalg.vector_norm(want) + 1e-3


def test_the_critics_compute_as_the_actor_trunk_does_and_their_output_layer_in_fp32():
    trunk = MLP(VECTOR, [256, 256], "relu", Precision("bf16"))
    critics = Critics(VECTOR, 2, [256, 256], trunk)
    assert critics.precision is trunk.precision
    q = critics(torch.randn(8, 17), torch.zeros(8, 6))  # hidden layers in bf16 (forced), then the output layer
    assert q.dtype == torch.float32 and q.shape == (2, 8)
    assert Critics(VECTOR, 2, [256], MLP(VECTOR, [8])).precision.setting == "fp32"  # a bare trunk: fp32


def test_fp32_block_turns_bf16_off_inside_and_back_on_after():
    net = build_network({**SAC_NET, "precision": "bf16"}, VECTOR)
    precision = precision_of(net)
    assert precision is not None
    with fp32(net):
        assert not precision.bf16_linear(torch.zeros(256, 256), 256 * 256)
    assert precision.bf16_linear(torch.zeros(256, 256), 256 * 256)


def test_a_run_config_from_before_network_precision_keeps_its_encoder_setting():
    pixels = EnvSpec("Pixels-v0", (4, 84, 84), gym.spaces.Discrete(3), None, np.dtype(np.uint8), 4)
    older = {"encoder": {"name": "nature_cnn", "precision": "fp32"}, "head": {"name": "q"}}
    precision = precision_of(build_network(older, pixels))
    assert precision is not None and precision.setting == "fp32"


def test_the_config_schema_takes_the_settings_precision_knows():
    # the schema names them itself: importing this module loads torch, and a config error comes first
    assert typing.get_args(typing.get_type_hints(Network)["precision"]) == PRECISIONS
