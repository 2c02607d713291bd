"""Optimizer options: Adam and RMSprop, with per-part groups and optional linear LR decay."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from rlfw.errors import require
from rlfw.optim.groups import param_groups
from rlfw.registry import register
from rlfw.values import check_values

RANGES = {  # hyperparameter -> (allowed, in words); shared by the optimizer and each of its groups
    "lr": (lambda v: v >= 0, "must be >= 0 (0 freezes a part)"),
    "eps": (lambda v: v >= 0, "must be >= 0"),
    "weight_decay": (lambda v: v >= 0, "must be >= 0"),
    "alpha": (lambda v: 0 <= v <= 1, "must be in [0, 1]"),
}


def _check_ranges(key: str, values: dict[str, Any]) -> None:
    for name, value in values.items():
        allowed, words = RANGES[name]
        require(allowed(value), f"{key}.{name}", value, words)


class _Optim:
    torch_class: Any  # a torch.optim.Optimizer subclass
    # foreach: one kernel per step for all tensors (torch only defaults to it on CUDA); fused (Adam):
    # one kernel per tensor that does the whole update, on CPU and CUDA. Under mixed precision the
    # fused kernel unscales gradients inside its step, so Lightning could not clip them: foreach then.
    fused: bool = False

    def __init__(self, lr: float, anneal_lr: bool, groups: dict | None, **kwargs: Any):
        require(lr > 0, "optim.lr", lr, "must be > 0")
        _check_ranges("optim", kwargs)
        self.lr, self.anneal_lr, self.groups, self.kwargs = lr, anneal_lr, dict(groups or {}), kwargs
        for part, options in self.groups.items():  # a group takes the optimizer's own hyperparameters
            key = f"optim.groups.{part}"
            require(isinstance(options, dict), key, options, "expected a mapping such as {lr: 0.001}")
            _check_ranges(key, check_values(type(self), options, key, {"anneal_lr", "groups"}))

    def build(
        self, net: nn.Module, loss: nn.Module | None = None, mixed_precision: bool = False
    ) -> torch.optim.Optimizer:
        kernel = {"fused": True} if self.fused and not mixed_precision else {"foreach": True}
        optimizer: torch.optim.Optimizer = self.torch_class(
            param_groups(net, self.groups, loss), lr=self.lr, **kernel, **self.kwargs
        )
        return optimizer


@register("optim", "adam")
class Adam(_Optim):
    torch_class = torch.optim.Adam
    fused = True  # one kernel per tensor: fewer calls per update than foreach for small networks

    def __init__(
        self,
        lr: float = 3e-4,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        anneal_lr: bool = False,
        groups: dict | None = None,
    ):
        super().__init__(lr, anneal_lr, groups, eps=eps, weight_decay=weight_decay)


@register("optim", "rmsprop")
class RMSprop(_Optim):
    torch_class = torch.optim.RMSprop

    def __init__(
        self,
        lr: float = 7e-4,
        alpha: float = 0.99,
        eps: float = 1e-5,
        anneal_lr: bool = False,
        groups: dict | None = None,
    ):
        super().__init__(lr, anneal_lr, groups, alpha=alpha, eps=eps)
