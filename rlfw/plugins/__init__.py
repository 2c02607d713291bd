"""Plugins from outside: installed distributions with an entry point in the group ``rlfw.plugins``.

The entry point's value is the plugin's package (``my_plugin = "my_plugin"``). rlfw imports it when
the registry is first used, so its ``@register`` calls run, and Hydra finds its config tree, the
subpackage ``my_plugin/conf/`` laid out like rlfw's ``conf/``, through rlfw's search-path plugin
(``rlfw.plugins.search_path``). A plugin that fails to import, registers a name that is taken, or
registers an option without a yaml is reported by name and skipped; with ``RLFW_STRICT_PLUGINS=1``
that is an error instead.

``python -m rlfw.plugins`` lists every registered option (``rlfw.plugins.listing``).
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

from rlfw.errors import ConfigError

GROUP = "rlfw.plugins"
log = logging.getLogger("rlfw")


def plugin_entry_points() -> list[EntryPoint]:
    return sorted(entry_points(group=GROUP), key=lambda ep: ep.name)


def package_dir(ep: EntryPoint) -> Path | None:
    """The plugin package's folder, found without importing it (a broken plugin must not stop Hydra)."""
    try:
        spec = importlib.util.find_spec(ep.value)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin).parent if spec and spec.origin else None


def config_dirs() -> dict[str, Path]:
    """Each plugin's ``conf/`` folder, by entry-point name (what Hydra's search path gets)."""
    dirs = {}
    for ep in plugin_entry_points():
        folder = package_dir(ep)
        if folder is not None and (folder / "conf").is_dir():
            dirs[ep.name] = folder / "conf"
    return dirs


def describe(ep: EntryPoint) -> str:
    dist = ep.dist
    return f"plugin {ep.name!r} ({dist.name} {dist.version})" if dist else f"plugin {ep.name!r}"


# (kind, name) -> the plugin that registered it; options missing here are rlfw's own.
ORIGIN: dict[tuple[str, str], EntryPoint] = {}


def distribution(kind: str, name: str) -> str | None:
    """The distribution (``rlfw-qr-dqn 0.0.1``) whose plugin registered ``(kind, name)``; None for rlfw's own."""
    ep = ORIGIN.get((kind, name))
    return None if ep is None else f"{ep.dist.name} {ep.dist.version}" if ep.dist else f"plugin {ep.name}"


def load(registry: dict[str, dict[str, Any]], conf_dirs: dict[str, str]) -> None:
    """Imports every plugin package into ``registry`` (kind -> name -> class). A plugin that fails
    takes back what it registered; each option a plugin adds needs its yaml in the plugin's conf/."""
    for ep in plugin_entry_points():
        before = {(kind, name) for kind, options in registry.items() for name in options}
        try:
            importlib.import_module(ep.value)
        except Exception as err:  # a plugin's bug, or a name it registers twice: report it, keep going
            for kind, options in registry.items():
                for name in [n for n in options if (kind, n) not in before]:
                    del options[name]
            report(ep, f"skipped: {type(err).__name__}: {err}")
            continue
        added = sorted({(kind, name) for kind, options in registry.items() for name in options} - before)
        conf = (package_dir(ep) or Path()) / "conf"
        for kind, name in added:
            ORIGIN[kind, name] = ep
            if not (conf / conf_dirs[kind] / f"{name}.yaml").is_file():
                report(ep, f"registers {kind} {name!r} but ships no conf/{conf_dirs[kind]}/{name}.yaml")


def report(ep: EntryPoint, reason: str) -> None:
    line = f"{describe(ep)}: {reason}"
    if os.environ.get("RLFW_STRICT_PLUGINS") == "1":
        raise ConfigError(f"{line} (RLFW_STRICT_PLUGINS=1)")
    log.warning("rlfw: %s", line)
