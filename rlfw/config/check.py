"""Check a whole resolved config before anything is built, and return the config that will run.

Every key at every level is checked: the run's own nodes against ``rlfw.config.schema``, each option group
against its chosen class's typed ``__init__`` (``rlfw.values.check_values``). Then whether the
chosen options fit together, on their classes (``rlfw.config.fit``). What a class's constructor checks (ranges that
depend on several values, the env, memory) follows in ``rlfw.config.build.build_parts``.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from rlfw.config import schema
from rlfw.config.fit import check_fit
from rlfw.errors import ConfigError
from rlfw.registry import CONF_DIRS, GROUPS, RUN_CONTEXT, lookup, names, options
from rlfw.values import check_values


def check_config(
    cfg: dict[str, Any],
    user_keys: frozenset[str] = frozenset(),
    choices: dict | None = None,
    dropped: list[str] | None = None,
) -> dict[str, Any]:
    """``cfg`` is the resolved config as plain containers; ``user_keys`` the dotted keys the command
    line set (never dropped silently); ``choices`` Hydra's group choices (checks the tuned file).
    Returns a copy without the keys a tuned file set for a sibling option; ``dropped`` receives a
    warning for each (logged right away when it is None)."""
    if choices is not None:
        _check_tuned(choices)
        _check_ablate(choices)
    cfg = copy.deepcopy(cfg)
    for key, kind in GROUPS.items():
        parent, _, leaf = key.rpartition(".")
        node = (cfg.get(parent) if parent else cfg) or {}
        if not isinstance(node.get(leaf), dict):
            group = CONF_DIRS[kind]
            raise ConfigError(f"{group}={node.get(leaf)!r}: choose an option of {group}: {', '.join(names(kind))}")
    for key, node_schema in schema.NODES.items():
        _check_node(node_schema, cfg[key] if key else cfg, key, user_keys)
    for key, kind in GROUPS.items():
        parent, _, leaf = key.rpartition(".")
        holder = cfg[parent] if parent else cfg
        node = holder[leaf]
        cls = lookup(kind, node.get("name"), f"{key}.name")
        values = {k: v for k, v in node.items() if k != "name"}
        checked = check_values(cls, values, key, RUN_CONTEXT.get(kind, set()), options(kind), user_keys, dropped)
        holder[leaf] = {"name": node["name"], **checked}
    check_fit(cfg)
    return cfg


def _check_node(node_schema: Any, node: Any, key: str, user_keys: frozenset[str]) -> None:
    if not isinstance(node, dict):
        keys = ", ".join(f.name for f in dataclasses.fields(node_schema))
        raise ConfigError(f"{key}={node!r}: expected a mapping with keys {keys}")
    values = check_values(node_schema, node, key, user_keys=user_keys)
    node_schema(**values)  # the ranges


def _check_tuned(choices: dict) -> None:
    """``tuned`` is picked from algo and env; naming another file (or a missing one) is a mistake."""
    tuned, expected = choices.get("tuned"), f"{choices.get('algo')}_{choices.get('env')}"
    if tuned not in (None, expected):
        raise ConfigError(
            f"tuned={tuned}: tuned values are picked by algo and env (conf/tuned/<algo>_<env>.yaml);"
            f" this run's would be tuned={expected}, or tuned=null for none"
        )


def _check_ablate(choices: dict) -> None:
    """The ablate options set back one of Rainbow's parts; another algo lacks some of them, and the option
    would change what it has instead (algo=dqn ablate=no_noisy: only a lower final epsilon)."""
    ablate, algo = choices.get("ablate"), choices.get("algo")
    if ablate not in (None, "none") and algo != "rainbow":
        raise ConfigError(
            f"ablate={ablate}: the ablate options set back one of Rainbow's parts, for algo=rainbow; algo={algo}"
            " does not have them all (set the part's own key instead, e.g. network.head.noisy=false)"
        )
