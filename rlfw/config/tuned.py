"""Tuned values are picked by algo and env (``optional tuned: ${algo}_${env}`` in conf/config.yaml); a
combination with no such file runs the algorithm's generic defaults, and says so in one line."""

from __future__ import annotations

from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from rlfw.config.path import config_dir

TABLE = "docs/results.md, 'Every algorithm on every env family'"


def untuned(choices: dict[str, str | None]) -> str | None:
    """The start-of-run line for ``choices`` (Hydra's group choices) without a tuned file; None with one,
    or where the user chose ``tuned=null``."""
    name = choices.get("tuned")
    if name is None or name in tuned_options():
        return None
    return (
        f"no tuned values for algo={choices.get('algo')} env={choices.get('env')} (looked for conf/tuned/{name}.yaml):"
        f" the algorithm's generic defaults; tuned combinations: {TABLE}"
    )


def tuned_options() -> list[str]:
    """The tuned files on Hydra's search path (rlfw's and plugins'); Hydra is started for it where the
    caller composed and left (``rlfw.train``)."""
    if GlobalHydra.instance().is_initialized():
        return GlobalHydra.instance().config_loader().get_group_options("tuned")
    with initialize_config_dir(config_dir(), version_base="1.3"):
        return GlobalHydra.instance().config_loader().get_group_options("tuned")
