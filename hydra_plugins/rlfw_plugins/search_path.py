"""Puts each installed rlfw plugin's config tree on Hydra's search path (``rlfw.plugins``)."""

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

from rlfw.plugins import config_dirs


class RlfwPluginsSearchPath(SearchPathPlugin):
    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        for name, path in config_dirs().items():
            search_path.append(provider=f"rlfw-plugin:{name}", path=f"file://{path}")
