"""``schedule:``: values that change by env step as a run trains, in the config's own shape.

    schedule:
      optim:
        lr: {0: 3.0e-4, 50000: 1.0e-4}     # from env step 50,000 on, the learning rate is 1e-4
      loss:
        ent_coef: {0: 0.01, 200000: 0.0}

Each leaf is ``{env_step: value}``: the value of the highest step at or below the run's env step holds
(a step function, as population-based training writes them); before the first step the key's own value
does. A run that learns from data counts updates instead. Here: the format, the check against the built
parts (which values each can change: its class's ``schedulable``; optimizer hyperparameters by group),
and ``Schedule.apply``, which the run's stream calls between update phases. No torch import.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rlfw.errors import ConfigError
from rlfw.registry import build
from rlfw.values import parameters, suggest

EXAMPLE = "{env_step: value, ...} such as {0: 3.0e-4, 50000: 1.0e-4}"


def leaves(node: Any, prefix: str = "") -> dict[str, dict[int, Any]]:
    """The schedule's keys (dotted, ``optim.lr``) and their ``{step: value}`` in step order."""
    if not isinstance(node, dict):
        raise ConfigError(
            f"schedule{'.' + prefix[:-1] if prefix else ''}={node!r}: expected a mapping of keys to {EXAMPLE}"
        )
    found: dict[str, dict[int, Any]] = {}
    for name, value in node.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict) and value and all(isinstance(s, int) and not isinstance(s, bool) for s in value):
            negative = [s for s in value if s < 0]
            if negative:
                raise ConfigError(f"schedule.{key}: env step {negative[0]} is negative; steps count from 0")
            found[key] = dict(sorted(value.items()))
        elif isinstance(value, dict) and value and not any(isinstance(s, int) for s in value):
            found.update(leaves(value, f"{key}."))
        else:
            raise ConfigError(f"schedule.{key}={value!r}: expected {EXAMPLE}")
    return found


def in_effect(steps: dict[int, Any], step: int) -> Any:
    """The value ``steps`` gives at ``step``; None before its first step."""
    keys = list(steps)
    at = bisect_right(keys, step)
    return steps[keys[at - 1]] if at else None


def changed_before(saved: Any, now: Any, step: int) -> list[str]:
    """The keys whose values before ``step`` differ between two schedules: a resumed run may add or
    change what comes at its checkpoint's step or later, not what it trained with."""
    before, after = leaves(saved or {}), leaves(now or {})
    changed = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key, {}), after.get(key, {})
        if {s: v for s, v in old.items() if s < step} != {s: v for s, v in new.items() if s < step}:
            changed.append(key)
    return changed


def check_resumed(path: Any, state: dict[str, Any], cfg: dict[str, Any]) -> None:
    """A resumed run's schedule trains what its checkpoint trained, up to the checkpoint's step."""
    step = state["run"]["updates" if cfg.get("total_updates") else "env_steps"]
    changed = changed_before(state["config"].get("schedule"), cfg["schedule"], step)
    if changed:
        raise ConfigError(
            f"resume: {path} trained with other values of {', '.join('schedule.' + k for k in changed)} before"
            f" {step:,} (where the checkpoint is); a resumed run may change its schedule from there on"
        )


# The option groups whose values can follow a schedule; each class names its own (``schedulable``).
PART_GROUPS = ("loss", "explore", "target")
NOT_SCHEDULABLE = (
    "only optim, loss, explore and target values can change as a run trains (the env, the network's"
    " shape, the replay and the run's own keys are fixed when it starts)"
)


@dataclass
class Entry:
    key: str  # as the config writes it: optim.lr, optim.groups.critic.lr, loss.ent_coef
    steps: dict[int, Any]
    part: Any = None  # the loss head, explore rule or target rule whose attribute it sets; None: the optimizer
    name: str = ""  # the attribute, or the optimizer's hyperparameter
    groups: tuple[str, ...] = ()  # the optimizer's param groups it sets (by name)


class Schedule:
    """The run's scheduled values, set on the parts by ``apply`` between update phases."""

    def __init__(self, entries: list[Entry]):
        self.entries = entries
        self.now: dict[str, Any] = {}  # the values set so far, by key (for the train metrics)

    def apply(self, step: int, optimizer: Any, lr_scheduler: Any = None) -> None:
        """Sets each value in effect at ``step`` that is not set yet (a resumed run sets them all once)."""
        for entry in self.entries:
            value = in_effect(entry.steps, step)
            if value is None or self.now.get(entry.key) == value:
                continue
            if entry.part is not None:
                setattr(entry.part, entry.name, value)
            else:
                set_hyperparameter(optimizer, lr_scheduler, entry.groups, entry.name, value)
            self.now[entry.key] = value


def set_hyperparameter(optimizer: Any, lr_scheduler: Any, groups: tuple[str, ...], name: str, value: Any) -> None:
    """``name`` of the named param groups; a learning rate under ``anneal_lr`` is the decay's base (the
    decay's factor stays as it is)."""
    for index, group in enumerate(optimizer.param_groups):
        if group["name"] not in groups:
            continue
        if name == "lr" and lr_scheduler is not None:
            lr_scheduler.base_lrs[index] = group["initial_lr"] = value
            value_now = value * lr_scheduler.lr_lambdas[index](lr_scheduler.last_epoch)
        else:
            value_now = value
        group[name] = value_now


def build_schedule(cfg: dict[str, Any], parts: dict[str, Any], context: dict[str, Any]) -> Schedule:
    """The config's ``schedule``, checked against the run's built ``parts`` (by group: loss, explore,
    target, optim): each key one its part can change as it trains, each value one the key accepts."""
    entries = []
    for key, steps in leaves(cfg.get("schedule") or {}).items():
        group, _, name = key.partition(".")
        if group == "optim":
            entries.append(_optim_entry(cfg["optim"], parts["optim"], key, name, steps))
            continue
        if group not in PART_GROUPS or not name:
            raise ConfigError(f"schedule.{key}: {NOT_SCHEDULABLE}")
        part = parts[group]
        allowed = sorted(getattr(type(part), "schedulable", ()))
        if name not in allowed:
            raise ConfigError(
                f"schedule.{key}: {group}={cfg[group]['name']} cannot change {name} as it trains"
                f"{suggest(name, allowed)}; it can change: {', '.join(allowed) or 'none of its values'}"
            )
        for step, value in steps.items():
            _require_type(key, value, getattr(part, name))
            with _at(key, step):
                build(group, {**cfg[group], name: value}, group, **context)  # the key's own checks
        entries.append(Entry(key, steps, part, name))
    return Schedule(entries)


def _optim_entry(node: dict[str, Any], optim: Any, key: str, name: str, steps: dict[int, Any]) -> Entry:
    """``optim.<h>`` (the default group, and each group that does not set h) or ``optim.groups.<part>.<h>``."""
    hyper = sorted(parameters(type(optim)) - {"anneal_lr", "groups"})
    groups = node.get("groups") or {}
    part, _, name = name.rpartition(".")
    if part:
        if not part.startswith("groups."):
            raise ConfigError(f"schedule.{key}: optim's scheduled values are optim.<h> or optim.groups.<part>.<h>")
        part = part.removeprefix("groups.")
        if part not in groups:
            raise ConfigError(
                f"schedule.{key}: {part!r} has no group of its own in optim.groups (groups: {', '.join(groups) or 'none'});"
                f" give it one (optim.groups.{part}.{name}=...) or schedule optim.{name}"
            )
    if name not in hyper:
        raise ConfigError(
            f"schedule.{key}: optim={node['name']} has no hyperparameter {name}{suggest(name, hyper)}; it has: {', '.join(hyper)}"
        )
    for step, value in steps.items():
        _require_type(key, value, node[name])
        changed = {**groups, part: {**groups[part], name: value}} if part else groups
        with _at(key, step):
            build("optim", {**node, **({} if part else {name: value}), "groups": changed}, "optim")
    names = (part,) if part else ("default", *(g for g, options in groups.items() if name not in options))
    return Entry(key, steps, name=name, groups=names)


@contextmanager
def _at(key: str, step: int) -> Iterator[None]:
    """The key's own check of a scheduled value, its line saying where in the schedule it is."""
    try:
        yield
    except ConfigError as err:
        raise ConfigError(f"schedule.{key} at env step {step:,}: {err}") from err


def _require_type(key: str, value: Any, now: Any) -> None:
    """A scheduled value has its key's type: an integer for an integer, a number for a number."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(now, int) and not isinstance(now, bool):
        ok, words = isinstance(value, int) and not isinstance(value, bool), "an integer, as the key's own value"
    else:
        ok, words = number, "a number, as the key's own value"
    if not ok:
        raise ConfigError(f"schedule.{key}: {value!r} is not {words}")
