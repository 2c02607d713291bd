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
from rlfw.values import suggest

GRAMMAR = "https://hydra.cc/docs/advanced/override_grammar/basic"
# What a config can raise before training: rlfw's checks, Hydra's composition, OmegaConf's resolution,
# and the TypeError/ValueError a constructor or library raises on a value it cannot take.
CONFIG_ERRORS = (ConfigError, HydraException, OmegaConfBaseException, ValueError, TypeError)


def fail(err: Exception) -> NoReturn:
    """Print the config error in one line and exit with code 2 (``SystemExit`` passes through Hydra,
    which turns a callback's exceptions into warnings)."""
    print(f"rlfw: config error: {one_line(err)}", file=sys.stderr)
    sys.exit(2)


def one_line(err: Exception) -> str:
    if isinstance(err, ConfigError):
        return str(err)
    if isinstance(err, MissingConfigException) and err.options is not None and err.missing_cfg_file:
        group, _, name = err.missing_cfg_file.rpartition("/")
        options = list(err.options)
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
    if missing:
        parent, _, name = missing.group(1).rpartition(".")
        node = schema.NODES.get(parent)
        keys = [f.name for f in dataclasses.fields(node) if f.name != name] if node else []
        return f"{missing.group(1)}: no such key in the config{suggest(name, keys)}; to add a key, prefix it with +"
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
