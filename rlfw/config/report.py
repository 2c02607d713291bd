"""One line for every configuration error, whoever finds it: rlfw, Hydra or OmegaConf."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path
from typing import NoReturn

from hydra.errors import HydraException, MissingConfigException, OverrideParseException
from omegaconf.errors import OmegaConfBaseException

from rlfw.config import schema
from rlfw.config.launchers import install_hint
from rlfw.config.path import config_dir
from rlfw.errors import ConfigError
from rlfw.registry import GROUPS, RUN_CONTEXT, options
from rlfw.values import parameters, suggest

GRAMMAR = "https://hydra.cc/docs/advanced/override_grammar/basic"
MULTIRUN = {"-m", "--multirun"}
# What a config can raise before training: rlfw's checks, Hydra's composition, OmegaConf's resolution,
# and the TypeError/ValueError a constructor or library raises on a value it cannot take.
CONFIG_ERRORS = (ConfigError, HydraException, OmegaConfBaseException, ValueError, TypeError)


def fail(err: Exception) -> NoReturn:
    """Print the config error in one line and exit with code 2 (``SystemExit`` passes through Hydra,
    which turns a callback's exceptions into warnings)."""
    print(f"rlfw: config error: {one_line(err)}", file=sys.stderr)
    sys.exit(2)


def nested(name: str) -> str:
    """`` (did you mean optim.lr?)`` for a top-level ``lr``: the options' keys of that name, by config path."""
    paths = sorted(
        f"{path}.{name}"
        for path, kind in GROUPS.items()
        if name not in RUN_CONTEXT.get(kind, set())  # what the run hands a constructor (spec) is no key
        and any(name in parameters(cls) for cls in options(kind).values())
    )
    return f" (did you mean {' or '.join(paths)}?)" if paths else ""


def chosen_by(group: str, name: str) -> str | None:
    """The command line's override whose option picks ``group=name`` in its yaml defaults, as typed."""
    for arg in sys.argv[1:]:
        option_group, sep, option = arg.lstrip("+~").partition("=")
        file = Path(config_dir()) / option_group / f"{option}.yaml"
        if sep and file.is_file() and f"override /{group}: {name}" in file.read_text():
            return arg
    return None


# keys a release renamed: a command line that still sets one is told the new name
MOVED = {"network.encoder.precision": "network.precision (auto, fp32 or bf16), one key for the whole network"}


def one_line(err: Exception) -> str:
    if isinstance(err, ConfigError):
        return str(err)
    if isinstance(err, MissingConfigException) and err.options is not None and err.missing_cfg_file:
        group, _, name = err.missing_cfg_file.rpartition("/")
        options = list(err.options)
        by = chosen_by(group, name)
        if by and install_hint(group, name):  # search=ppo_cartpole picks hydra/sweeper=rlfw_optuna
            return f"{by} needs {group}={name}{install_hint(group, name)}"
        return f"{group}={name}: no such option{suggest(name, options)}; valid: {', '.join(options)}{install_hint(group, name)}"
    unlisted = re.search(r"Could not load '([\w/]+)/([^']+)'", str(err))  # one name of a list: logger=[wandb,nope]
    if isinstance(err, MissingConfigException) and unlisted:
        group, name = unlisted.groups()
        stems = sorted(p.stem for p in (Path(config_dir()) / group).glob("*.yaml"))
        return f"{group}={name}: no such option{suggest(name, stems)}; valid: {', '.join(stems)}{install_hint(group, name)}"
    if isinstance(err, OverrideParseException):
        return f"cannot parse the override {err.override!r}: {str(err).splitlines()[0]} (grammar: {GRAMMAR})"
    text = str(err)
    missing = re.match(r"Could not override '([^']+)'", text)
    if missing and missing.group(1) in MOVED:
        return f"{missing.group(1)}: renamed {MOVED[missing.group(1)]}"
    if missing:
        parent, _, name = missing.group(1).rpartition(".")
        node = schema.NODES.get(parent)
        keys = [f.name for f in dataclasses.fields(node) if f.name != name] if node else []
        hint = suggest(name, keys) or (nested(name) if not parent else "")
        # a sweep composes its primary config first: a key only the swept options have (algo=dqn,double_dqn
        # replay.learning_starts=500, where the default algo's replay has none) is missing there
        sweep = " (in a sweep, ++ sets a key that only the swept options have)" if MULTIRUN & set(sys.argv) else ""
        return f"{missing.group(1)}: no such key in the config{hint}; to add a key, prefix it with +{sweep}"
    if text.startswith("Config group override must be a string or a list"):  # group=null, network=5, ...
        # Hydra does not say which override: name those that set a whole node to something not an option name.
        suspects = [a for a in sys.argv[1:] if re.fullmatch(r"[\w/]+=(null|(?![A-Za-z_][\w-]*$).*)", a)]
        return (
            f"{', '.join(suspects) or 'an override'}: a config group needs an option; remove the override or name one"
        )
    if isinstance(err, OmegaConfBaseException) and getattr(err, "full_key", None):
        return f"{err.full_key}: {text.splitlines()[0]}"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if err.__cause__ is not None and str(err.__cause__).strip():  # Hydra wraps OmegaConf's reason
        lines.append(str(err.__cause__).strip().splitlines()[0])
    return f"{type(err).__name__}: {' '.join(lines)}" if lines else type(err).__name__
