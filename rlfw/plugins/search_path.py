"""Puts each installed rlfw plugin's config tree on Hydra's search path.

rlfw registers this search-path plugin with Hydra itself (``install``) before it composes a config,
rather than shipping it in the ``hydra_plugins`` namespace package: Hydra finds that package's
modules with ``pkgutil``, which sees nothing through the path hook of a setuptools editable install,
so an editable rlfw would never load it (STACK.md, "the trap that hid a plugin bug").
"""

from __future__ import annotations

from hydra.core.config_search_path import ConfigSearchPath
from hydra.core.plugins import Plugins
from hydra.plugins.search_path_plugin import SearchPathPlugin

from rlfw.plugins import config_dirs


class RlfwPluginsSearchPath(SearchPathPlugin):
    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        for name, path in config_dirs().items():
            search_path.append(provider=f"rlfw-plugin:{name}", path=f"file://{path}")


def install() -> None:
    """Registers the search-path plugin with Hydra (once; registering again changes nothing)."""
    Plugins.instance().register(RlfwPluginsSearchPath)
