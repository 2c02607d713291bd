import gymnasium as gym
import numpy as np
import pytest
import torch

from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.network.encoder.cnn import NatureCNN
from rlfw.network.precision import Precision, fp32


def image_spec(shape) -> EnvSpec:
    return EnvSpec("Pixels-v0", tuple(shape), gym.spaces.Discrete(3), None, np.dtype(np.uint8), shape[0])


def test_nature_cnn_scales_uint8_pixels_inside():
    torch.manual_seed(0)
    cnn = NatureCNN(image_spec((4, 84, 84)))
    pixels = torch.randint(0, 256, (3, 4, 84, 84), dtype=torch.uint8)
    out = cnn(pixels)
    assert out.shape == (3, 512) and cnn.out_dim == 512
    assert sum(p.numel() for p in cnn.parameters()) == 1_684_128  # Mnih et al. 2015's layers, up to the 512 units
    torch.testing.assert_close(out, cnn(pixels.float()))  # uint8 in: the same as the same values as float


@pytest.mark.parametrize("channels_last", [False, True])
def test_the_callers_observations_are_never_scaled_in_place(channels_last):
    cnn = NatureCNN(image_spec((4, 84, 84)), channels_last=channels_last)
    floats = torch.randint(0, 256, (2, 4, 84, 84)).float()
    cnn(floats)
    assert floats.max() > 1  # scaled into a new tensor, never in the caller's


def test_channels_last_changes_memory_order_not_results():
    torch.manual_seed(0)
    cnn = NatureCNN(image_spec((4, 84, 84)), channels_last=False)  # fp32 unless given a Precision
    pixels = torch.randint(0, 256, (5, 4, 84, 84), dtype=torch.uint8)
    expected = cnn(pixels)
    cnn.channels_last = True
    torch.testing.assert_close(cnn(pixels), expected, rtol=1e-4, atol=1e-5)


def test_bf16_convolutions_give_fp32_features_close_to_fp32_and_gradients():
    torch.manual_seed(0)
    cnn = NatureCNN(image_spec((4, 84, 84)), precision=Precision("bf16"))
    pixels = torch.randint(0, 256, (8, 4, 84, 84), dtype=torch.uint8)
    with fp32(cnn):
        expected = cnn(pixels)
    out = cnn(pixels)
    assert out.dtype == torch.float32 and not torch.equal(out, expected)  # bf16 arithmetic ran
    torch.testing.assert_close(out, expected, rtol=0.05, atol=0.02)  # bf16 keeps 8 bits of mantissa
    out.sum().backward()
    assert all(p.grad is not None and p.grad.dtype == torch.float32 for p in cnn.parameters())


def test_leading_axes_are_input_channels():
    cnn = NatureCNN(image_spec((2, 3, 10, 10)), channels=[8], kernels=[3], strides=[1], hidden=16)
    assert cnn.convs[0].in_channels == 6
    assert cnn(torch.zeros(4, 2, 3, 10, 10, dtype=torch.uint8)).shape == (4, 16)


@pytest.mark.parametrize(
    "shape, values, message",
    [
        ((4,), {}, "needs image observations"),
        ((2, 10, 5), {}, "10x5 images are too small for kernels [8, 4, 3]"),
        ((4, 84, 84), {"channels": [32], "kernels": [8, 4]}, "one entry per conv layer"),
    ],
)
def test_refuses_what_it_cannot_read(shape, values, message):
    spec = EnvSpec("Vec-v0", shape, gym.spaces.Discrete(2), None)
    with pytest.raises(ConfigError, match=None) as err:
        NatureCNN(spec, **values)
    assert message in str(err.value)
