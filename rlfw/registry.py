"""The plugin registry: ``@register(kind, name)`` adds a class; ``build(kind, cfg, ...)`` makes one.

A config node names its option with ``name`` and carries plain values. ``build`` checks those values
against the class's typed ``__init__`` (``rlfw.values``: unknown keys, wrong types) and raises
``ConfigError`` listing what is valid, so a bad config fails before training starts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from rlfw.errors import ConfigError
from rlfw.values import check_values, parameters, suggest

KINDS = ("env", "encoder", "head", "explore", "replay", "target", "loss", "optim")
# Where each kind's yaml options live under conf/.
CONF_DIRS = {kind: kind for kind in KINDS} | {"encoder": "network/encoder", "head": "network/head"}
# The option groups of a run's config: config path -> kind.
GROUPS = {
    "env": "env",
    "network.encoder": "encoder",
    "network.head": "head",
    "explore": "explore",
    "replay": "replay",
    "target": "target",
    "loss": "loss",
    "optim": "optim",
}
# What the run hands each kind's constructor (``build``'s context); a config may not set these.
RUN_CONTEXT = {
    "encoder": {"spec", "normalize", "obs_clip"},  # the last two: network.normalize_obs, for a Dict's vector keys
    "head": {"spec", "make_encoder"},
    "explore": {"spec"},
    "replay": {"spec", "num_envs", "gamma", "total_env_steps", "data"},  # data: a dataset's transitions, or None
    "loss": {"spec"},
}

# Options of every kind, by name; each kind's contract (rlfw/<kind>/contract.py, the heads' protocols) is
# checked by rlfw.config.check when a run chooses one, not here: the registry imports no part.
_REGISTRY: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}
# The packages whose imports register rlfw's shipped options.
_BUILTINS = ("rlfw.env", "rlfw.network", "rlfw.explore", "rlfw.replay", "rlfw.target", "rlfw.loss", "rlfw.optim")
_loaded = False


def _load_builtins() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in _BUILTINS:
            importlib.import_module(module)
        from rlfw.plugins import load

        load(_REGISTRY, CONF_DIRS)  # installed plugins, after the built-ins


def chosen(cfg: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """The options a run's config chose: config path -> (kind, name), e.g. ``network.head -> (head, q)``."""
    picks = {}
    for key, kind in GROUPS.items():
        node: Any = cfg
        for part in key.split("."):
            node = node[part]
        picks[key] = (kind, node["name"])
    return picks


def register(kind: str, name: str) -> Callable[[Any], Any]:
    """Class decorator: make ``cls`` buildable as ``<kind>.name=<name>``."""
    if kind not in _REGISTRY:
        raise ValueError(f"unknown plugin kind {kind!r}; kinds: {', '.join(KINDS)}")

    def add(cls: Any) -> Any:
        if name in _REGISTRY[kind] and _REGISTRY[kind][name] is not cls:
            raise ValueError(f"{kind} {name!r} is already registered by {_REGISTRY[kind][name]!r}")
        _REGISTRY[kind][name] = cls
        cls.registered_name = name
        return cls

    return add


def names(kind: str) -> list[str]:
    """The registered option names of one kind, sorted."""
    _load_builtins()
    return sorted(_REGISTRY[kind])


def options(kind: str) -> dict[str, Any]:
    """The registered options of one kind, by name."""
    _load_builtins()
    return dict(_REGISTRY[kind])


def lookup(kind: str, name: str, key: str | None = None) -> Any:
    """The class registered as ``(kind, name)``; a ``ConfigError`` listing valid names otherwise."""
    _load_builtins()
    if name not in _REGISTRY[kind]:
        raise ConfigError(
            f"{key or kind + '.name'}={name!r}: not a registered {kind}{suggest(str(name), names(kind))};"
            f" valid: {', '.join(names(kind))}"
        )
    return _REGISTRY[kind][name]


def build(kind: str, cfg: Mapping[str, Any], key: str, **context: Any) -> Any:
    """Instantiate the option ``cfg["name"]`` of ``kind`` with the config's values plus ``context``.

    ``key`` is the config path of ``cfg`` (e.g. ``"replay"``), used in error messages. ``context``
    holds what the run supplies (the env spec, gamma, num_envs, ...): each class receives the entries
    its ``__init__`` names, and a config may not set those.
    """
    if "name" not in cfg:
        raise ConfigError(f"{key}.name is missing; valid: {', '.join(names(kind))}")
    cls = lookup(kind, cfg["name"], f"{key}.name")
    values = {k: v for k, v in cfg.items() if k != "name"}
    values = check_values(cls, values, key, set(context), options(kind))
    takes = parameters(cls)
    return cls(**values, **{k: v for k, v in context.items() if k in takes})  # each class takes what it declares
