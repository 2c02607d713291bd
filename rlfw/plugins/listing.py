"""``python -m rlfw.plugins``: every registered option per kind, where it comes from, its keys with
types and defaults, and what the fit checks read (needs, outputs, batch fields, extras); then the
yaml-only config groups (algo, env presets, logger, search, ablate, tuned) with each option's summary."""

from __future__ import annotations

import inspect
import re
import textwrap
import typing
from importlib.metadata import version
from pathlib import Path
from typing import Any

from rlfw.config.algos import group_files
from rlfw.config.fit import contracts
from rlfw.env.contract import EnvOption
from rlfw.plugins import distribution, plugin_entry_points
from rlfw.registry import CONF_DIRS, KINDS, RUN_CONTEXT, options
from rlfw.values import parameters, type_name

# Class attributes the fit checks read (rlfw.config.fit.check_fit), in the words the listing uses.
CONTRACT = {
    "outputs": "outputs",
    "action_spaces": "acts in",
    "trained_through": "trained through",
    "has_policy": "gives a policy (an action distribution)",
    "has_critics": "gives critics Q(s, a)",
    "recurrent": "recurrent",
    "scores": "closes an observation's closed actions in",
    "needs": "needs outputs",
    "needs_distribution": "needs a policy (an action distribution)",
    "needs_critic": "needs critics Q(s, a)",
    "needs_batch": "needs batch",
    "provides": "provides batch",
    "needs_extras": "needs extras",
    "extras": "records extras",
    "needs_target": "needs a target network",
    "reads_acting": "leaves out the rows that do not act",
    "signals": "signals",
    "needs_signals": "needs signals",
    "renders": "renders",
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


def contract(cls: Any, kind: str) -> str:
    """What ``cls`` declares of the attributes its kind's contract has (``rlfw.config.fit.contracts``)."""
    base = {**contracts(), "env": EnvOption}.get(kind)
    if base is None:
        return ""
    if not issubclass(cls, base):
        return f"does not subclass {base.__module__}.{base.__qualname__} (refused when chosen)"
    parts = []
    for attr, words in ((a, w) for a, w in CONTRACT.items() if a in vars(base)):
        value = getattr(cls, attr)  # declared by the contract: every subclass has it
        if isinstance(value, bool):
            parts += [words] if value else []
        elif isinstance(value, str):
            parts.append(f"{words} {value}")
        elif value:
            parts.append(f"{words} {', '.join(sorted(value))}")
    return "; ".join(parts)


def source(kind: str, name: str) -> str:
    return distribution(kind, name) or f"rlfw {version('rlfw')}"


# The config groups that are yaml only: each option sets values or picks options of the kinds above.
YAML_GROUPS = {
    "algo": "an algorithm: a set of choices among the kinds above",
    "env": "env presets: the env kind's options with their values (env=gym env.id=<id> takes any gymnasium id)",
    "logger": "where metrics go besides metrics.csv (logger=[wandb,tensorboard] for both)",
    "search": "Optuna search spaces: python -m rlfw -m search=<name>",
    "ablate": "Rainbow's ablation: one of its parts set back (algo=rainbow ablate=<name>)",
    "tuned": "tuned values, applied by themselves when algo and env match (conf/tuned/<algo>_<env>.yaml)",
}


def summary(file: Path, width: int = 110) -> str:
    """The first sentence of a yaml option's opening comment (Hydra's directives left out), cut to ``width``."""
    comment = []
    for line in file.read_text().splitlines():
        if not line.startswith("#"):
            break
        if not line.startswith("# @package"):
            comment.append(line.lstrip("#").strip())
    sentence = re.split(r"(?<! al)\. ", " ".join(comment))[0].rstrip(".")  # not at "Mnih et al. 2015"
    return sentence if len(sentence) <= width else sentence[: width - 3].rsplit(" ", 1)[0] + " ..."


def main() -> None:
    for kind in KINDS:
        print(f"{kind}  (conf/{CONF_DIRS[kind]}/, override: {CONF_DIRS[kind]}=<name>)")
        for name, cls in sorted(options(kind).items()):
            print(f"  {name}  [{source(kind, name)}]")
            print(f"      keys: {keys(cls, kind)}")
            if contract(cls, kind):
                print(f"      {contract(cls, kind)}")
        print()
    for group, what in YAML_GROUPS.items():
        how = "" if group == "tuned" else f", override: {group}=<name>"
        print(f"{group}  (conf/{group}/{how}): {what}")
        files = group_files(group)
        if group == "tuned":  # some 50 files, each named by what it applies to
            print(textwrap.fill(", ".join(sorted(files)), 100, initial_indent="  ", subsequent_indent="  "))
        for name, file in sorted(files.items()) if group != "tuned" else ():
            print(f"  {name}: {summary(file)}" if summary(file) else f"  {name}")
        print()
    installed = ", ".join(f"{ep.name} ({ep.value})" for ep in plugin_entry_points()) or "none"
    print(f"installed plugins (entry point group rlfw.plugins): {installed}")
