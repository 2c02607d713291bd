"""Check a whole resolved config before anything is built, and return the config that will run.

Every key at every level is checked: the run's own nodes against ``rlfw.config.schema``, each option group
against its chosen class's typed ``__init__`` (``rlfw.values.check_values``). Then whether the
chosen options fit together, on their classes. What a class's constructor checks (ranges that
depend on several values, the env, memory) follows in ``rlfw.config.build.build_parts``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from rlfw.config import schema
from rlfw.env.spec import EnvSpec
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


def _names(keys) -> str:
    return ", ".join(sorted(keys))


def losses_reading(outputs: frozenset[str]) -> list[str]:
    """The registered losses that read every one of ``outputs``."""
    return [name for name, cls in sorted(options("loss").items()) if outputs <= cls.needs]


def heads_with(has: Callable[[Any], bool]) -> list[str]:
    """The registered heads ``has`` is true of (``lambda head: head.has_policy``: pi(.|s))."""
    return [name for name, cls in sorted(options("head").items()) if has(cls)]


def contracts() -> dict[str, type]:
    """Each kind's contract class: the declared capabilities of heads, explore rules, replays, target
    rules and losses."""
    from rlfw.explore.contract import ExploreRule
    from rlfw.loss.contract import LossHead
    from rlfw.network.head.contract import NetworkHead
    from rlfw.replay.contract import Replay
    from rlfw.target.contract import TargetRule

    return {"head": NetworkHead, "explore": ExploreRule, "replay": Replay, "target": TargetRule, "loss": LossHead}


def check_fit(cfg: dict[str, Any]) -> None:
    """Do the chosen options fit together? Checked on their classes, before any is built."""
    keys = {"head": "network.head", "explore": "explore", "replay": "replay", "target": "target", "loss": "loss"}
    nodes = {"head": cfg["network"]["head"], **{kind: cfg[kind] for kind in keys if kind != "head"}}
    option = {kind: lookup(kind, nodes[kind].get("name"), f"{keys[kind]}.name") for kind in keys}
    head, explore, replay, target, loss = (option[k] for k in keys)
    chosen = {kind: cls.registered_name for kind, cls in option.items()}
    for kind, base in contracts().items():  # where each kind declares what the checks below read
        if not issubclass(option[kind], base):
            raise ConfigError(
                f"{keys[kind]}={chosen[kind]}: {option[kind].__qualname__} does not subclass"
                f" {base.__module__}.{base.__qualname__}, whose attributes declare what an option of this kind needs"
            )
    if head.recurrent:  # before the outputs: what a user mixing it with DQN or SAC needs to hear
        check_sequences(cfg, chosen, replay)
        if cfg["env"].get("agents_leave"):
            raise ConfigError(
                f"env.agents_leave=true: a recurrent head's memory would carry a left agent's waiting steps into"
                f" its next episode; network/head={chosen['head']} is recurrent (a feed-forward head)"
            )
        if cfg["league"]["past"] > 0:
            raise ConfigError(
                f"league.past={cfg['league']['past']}: past versions play one step at a time without memory;"
                f" network/head={chosen['head']} is recurrent (league.past=0, or a feed-forward head)"
            )
    for who, user in ((f"explore={chosen['explore']}", explore), (f"loss={chosen['loss']}", loss)):
        if not user.needs <= head.outputs:
            raise ConfigError(
                f"{who}: needs network outputs {_names(user.needs)}; network/head={chosen['head']} gives"
                f" {_names(head.outputs)}"
            )
        if user.needs_distribution and not head.has_policy:
            raise ConfigError(
                f"{who}: needs a policy, an action distribution from the head; network/head={chosen['head']}"
                f" gives {_names(head.outputs)} (heads with a policy: {', '.join(heads_with(lambda head: head.has_policy))})"
            )
    untrained = head.trained_through - loss.needs
    if untrained:
        raise ConfigError(
            f"loss={chosen['loss']}: network/head={chosen['head']} is trained through its outputs"
            f" {_names(untrained)}, which this loss does not read (losses that do: {', '.join(losses_reading(untrained))})"
        )
    if nodes["head"].get("noisy") and chosen["explore"] != "greedy":
        raise ConfigError(
            f"explore={chosen['explore']}: network.head.noisy=true explores through its noisy layers;"
            " use explore=greedy (or network.head.noisy=false)"
        )
    if loss.needs_critic and not head.has_critics:
        raise ConfigError(
            f"loss={chosen['loss']}: needs critics Q(s, a) from the head; network/head={chosen['head']} has none"
            f" (heads with critics: {', '.join(heads_with(lambda head: head.has_critics))})"
        )
    missing = loss.needs_batch - replay.provides
    if missing:
        raise ConfigError(
            f"loss={chosen['loss']}: needs batch fields {_names(missing)} that replay={chosen['replay']} does not provide"
            f" (it provides {_names(replay.provides)})"
        )
    unheard = replay.needs_signals - loss.signals
    if unheard:
        giving = [name for name, cls in sorted(options("loss").items()) if replay.needs_signals <= cls.signals]
        raise ConfigError(
            f"replay={chosen['replay']}: learns from the loss's signal {_names(unheard)} about each batch, which"
            f" loss={chosen['loss']} does not give (losses that do: {', '.join(giving)}; or replay=uniform)"
        )
    if loss.needs_joint and not replay.joint:
        joint = [name for name, cls in sorted(options("replay").items()) if cls.joint]
        raise ConfigError(
            f"loss={chosen['loss']}: sums the agents' rows of each joint step; replay={chosen['replay']} samples"
            f" rows one by one (replays that sample joint steps: {', '.join(joint)})"
        )
    missing = replay.needs_extras - explore.extras
    if missing:
        raise ConfigError(
            f"replay={chosen['replay']}: needs {_names(missing)} recorded while acting;"
            f" explore={chosen['explore']} records {_names(explore.extras) or 'nothing'} (use explore=sample)"
        )
    if loss.needs_target and not target.uses_target:
        raise ConfigError(
            f"target={chosen['target']}: loss={chosen['loss']} needs a target network; use target=hard or target=polyak"
        )
    if target.uses_target and not loss.needs_target:
        raise ConfigError(f"target={chosen['target']}: loss={chosen['loss']} uses no target network; use target=none")


def check_sequences(cfg: dict[str, Any], chosen: dict[str, str], replay: type) -> None:
    """A recurrent head learns from whole env columns in time order, split between minibatches."""
    if not replay.sequences:  # type: ignore[attr-defined]
        keeps = [name for name, cls in sorted(options("replay").items()) if cls.sequences]
        raise ConfigError(
            f"network/head={chosen['head']}: a recurrent head learns from whole episodes in time order;"
            f" replay={chosen['replay']} samples steps out of order (replays that keep them: {', '.join(keeps)})"
        )
    minibatches, num_envs = cfg["replay"].get("minibatches", 1), cfg["num_envs"]
    if num_envs % minibatches:
        raise ConfigError(
            f"replay.minibatches={minibatches}: a recurrent head trains on whole env columns, so the minibatches"
            f" must divide num_envs={num_envs}"
        )


def check_acting(cfg: dict[str, Any], spec: EnvSpec) -> None:
    """Rows that do not act at every step (``spec.idle`` says why) need a loss that leaves them out; past
    versions take seats only in games measured by their results."""
    name = cfg["loss"]["name"]
    if spec.idle and not lookup("loss", name).reads_acting:
        reading = [n for n, cls in sorted(options("loss").items()) if cls.reads_acting]
        raise ConfigError(
            f"loss={name}: {spec.idle}, and this loss learns from every row; losses that leave out the rows that do"
            f" not act: {', '.join(reading)} (algo=ppo, algo=a2c, algo=mappo)"
        )
    past = cfg["league"]["past"]
    if past > 0 and spec.evaluation != "games":
        raise ConfigError(
            f"league.past={past}: past versions take a seat in a turn-based game's training games (env=connect_four);"
            f" {spec.id} is not one (league.past=0)"
        )
