"""Networks are a head (what the network outputs) over one or two encoders (how obs are read)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.encoder import Encoder, cnn, mlp, multi  # noqa: F401  (registers)
from rlfw.network.encoder.multi import for_observations
from rlfw.network.head import (  # noqa: F401  (registers)
    actor_critic,
    categorical_q,
    deterministic,
    dueling_q,
    q,
    recurrent,
    squashed,
)
from rlfw.network.head.contract import NetworkHead
from rlfw.network.normalize import Normalized, ObsNorm
from rlfw.network.precision import Precision
from rlfw.registry import build


def build_network(cfg: dict[str, Any], spec: EnvSpec) -> NetworkHead:
    """``cfg`` is the ``network`` node: ``{"encoder": {...}, "head": {...}}``, and optionally
    ``normalize_obs`` (with ``obs_clip``): the encoders then read observations normalized by one
    shared ``ObsNorm`` (a Dict observation's ``multi`` encoder normalizes its vector keys itself), and
    ``precision``: one ``Precision`` that every part computing matrix products reads."""

    normalize = cfg.get("normalize_obs", False)
    encoder_cfg = dict(for_observations(cfg["encoder"], spec))
    # a run's config written before network.precision held the convolutions' setting in the encoder's node
    older = encoder_cfg.pop("precision", None)
    precision = Precision(cfg.get("precision") or older or "fp32")

    def encoder(skip: Sequence[str] = ()) -> Encoder:
        """An encoder of the config; ``skip``: a Dict observation's keys it leaves out (a critic's own)."""
        clip = {"obs_clip": cfg["obs_clip"]} if "obs_clip" in cfg else {}
        keys = dict(encoder_cfg.get("keys") or {})
        for key in skip:
            keys[key] = {**(keys.get(key) or {}), "skip": True}
        chosen = {**encoder_cfg, "keys": keys} if skip else encoder_cfg
        return build("encoder", chosen, "network.encoder", spec=spec, normalize=normalize, precision=precision, **clip)

    make_encoder = encoder
    if normalize and not spec.parts:
        require(
            spec.obs_dtype != np.uint8,
            "network.normalize_obs",
            True,
            f"{spec.id} gives uint8 pixels, which the encoder scales; normalization is for vector observations",
        )
        norm = ObsNorm(spec.obs_shape, cfg["obs_clip"])

        def make_encoder(skip: Sequence[str] = ()) -> Encoder:  # a flat observation: no keys to skip
            return Normalized(norm, encoder())

    head = build("head", cfg["head"], "network.head", spec=spec, make_encoder=make_encoder)
    if spec.mask is not None:  # the head closes what each observation's open actions close
        head.mask_columns = (spec.mask.start, spec.mask.start + spec.mask.size)
    return head
