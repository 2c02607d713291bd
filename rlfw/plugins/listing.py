"""``python -m rlfw.plugins``: every registered option per kind, where it comes from, its keys with
types and defaults, and what the fit checks read (needs, outputs, batch fields, extras)."""

from __future__ import annotations

import inspect
import typing
from importlib.metadata import version
from typing import Any

from rlfw.plugins import distribution, plugin_entry_points
from rlfw.registry import CONF_DIRS, KINDS, RUN_CONTEXT, options
from rlfw.values import parameters, type_name

# Class attributes the fit checks read (rlfw.config.check.check_fit), in the words the listing uses.
CONTRACT = {
    "outputs": "outputs",
    "action_spaces": "acts in",
    "needs": "needs outputs",
    "needs_distribution": "needs a policy (an action distribution)",
    "needs_critic": "needs critics Q(s, a)",
    "needs_batch": "needs batch",
    "provides": "provides batch",
    "needs_extras": "needs extras",
    "extras": "records extras",
    "needs_target": "needs a target network",
    "uses_target": "keeps a target network",
}


def keys(cls: Any, kind: str) -> str:
    hints = typing.get_type_hints(cls.__init__)
    signature = inspect.signature(cls.__init__).parameters
    shown = []
    for name in sorted(parameters(cls) - RUN_CONTEXT.get(kind, set()), key=list(signature).index):
        hint = hints.get(name)
        kind_name = type_name(hint) if hint is not None else "any"
        default = signature[name].default
        shown.append(f"{name}: {kind_name}" + ("" if default is inspect.Parameter.empty else f" = {default!r}"))
    return ", ".join(shown) or "none"


def contract(cls: Any) -> str:
    parts = []
    for attr, words in CONTRACT.items():
        value = getattr(cls, attr, None)
        if isinstance(value, bool):
            parts += [words] if value else []
        elif value:
            parts.append(f"{words} {', '.join(sorted(value))}")
    return "; ".join(parts)


def source(kind: str, name: str) -> str:
    return distribution(kind, name) or f"rlfw {version('rlfw')}"


def main() -> None:
    for kind in KINDS:
        print(f"{kind}  (conf/{CONF_DIRS[kind]}/, override: {CONF_DIRS[kind]}=<name>)")
        for name, cls in sorted(options(kind).items()):
            print(f"  {name}  [{source(kind, name)}]")
            print(f"      keys: {keys(cls, kind)}")
            if contract(cls):
                print(f"      {contract(cls)}")
        print()
    installed = ", ".join(f"{ep.name} ({ep.value})" for ep in plugin_entry_points()) or "none"
    print(f"installed plugins (entry point group rlfw.plugins): {installed}")
