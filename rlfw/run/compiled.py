"""``compile=true``: ``torch.compile`` of the network's forward and its acting forward (``acting``) and of the loss head's (the update's forward and backward), in place, so the state-dict keys and checkpoints stay as they are.

On a GPU the mode is ``reduce-overhead`` (CUDA graphs: a small network's update is many tiny kernels,
and replaying them as one graph removes the launch cost, as LeanRL does). On a CPU the default mode:
Inductor fuses the elementwise work around the matmuls. The optimizer step, the replay and the
explore rules stay eager. The first updates pay the compile (seconds to tens of seconds);
benchmarks/compile.py measures where that pays back.
"""

from __future__ import annotations

import torch
from torch import nn

from rlfw.network.head.contract import NetworkHead


def compile_parts(net: NetworkHead, loss: nn.Module, device: torch.device) -> None:
    mode = "reduce-overhead" if device.type == "cuda" else None
    net.compile(mode=mode)
    loss.compile(mode=mode)
    # the act path's own forward (an own-trunk actor-critic's actor alone), not net's __call__
    net.__dict__["for_acting"] = torch.compile(net.for_acting, mode=mode)
