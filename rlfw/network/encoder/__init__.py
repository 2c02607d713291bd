"""Encoders read observations into features; a head builds on one (or two) of them."""

from torch import nn


class Encoder(nn.Module):
    """What ``make_encoder()`` gives a head: a module from observations ``[B, *obs_shape]`` to features
    ``[B, out_dim]``."""

    out_dim: int
