"""Which algorithms can act in an action space: each ``conf/algo/<name>.yaml`` (rlfw's and installed
plugins') picks a head, and each head class says the action spaces it acts in (``action_spaces``)."""

from __future__ import annotations

from pathlib import Path

import yaml

from rlfw.config.path import config_dir
from rlfw.plugins import config_dirs
from rlfw.registry import names, options


def group_files(group: str) -> dict[str, Path]:
    """Every yaml option of a config group (``algo``, ``env``, ``network/head``) by name, rlfw's and
    the installed plugins'; where both have one, rlfw's."""
    folders = [Path(config_dir()), *config_dirs().values()]
    return {f.stem: f for folder in reversed(folders) for f in sorted((folder / group).glob("*.yaml"))}


def algo_files() -> dict[str, Path]:
    return group_files("algo")


def head_of(algo: str, files: dict[str, Path], seen: frozenset[str] = frozenset()) -> str | None:
    """The head an algo's yaml overrides, following ``defaults`` that name another algo."""
    if algo not in files or algo in seen:
        return None
    defaults = (yaml.safe_load(files[algo].read_text()) or {}).get("defaults", [])
    for entry in defaults:
        if isinstance(entry, dict) and "override /network/head" in entry:
            return str(entry["override /network/head"])
    for entry in defaults:
        if isinstance(entry, str) and entry != "_self_":
            found = head_of(entry, files, seen | {algo})
            if found:
                return found
    return None


def algos_acting_in(space: str, from_data: bool = False) -> list[str]:
    """The algos whose head declares it acts in ``space`` (``Box``, ``Discrete``, ...): those that learn
    from the env's steps, or with ``from_data`` those that learn from a dataset."""
    files, heads, offline = algo_files(), options("head"), set(algos_learning_from_data())
    acting = []
    for algo in sorted(files):
        head = head_of(algo, files)
        if head in names("head") and space in heads[head].action_spaces and (algo in offline) == from_data:
            acting.append(algo)
    return acting


def algos_learning_from_data() -> list[str]:
    """The algorithms whose yaml picks a fixed replay (a dataset: ``Replay.fixed``): the offline ones."""
    fixed = {name for name, cls in options("replay").items() if cls.fixed}
    found = []
    for algo, file in algo_files().items():
        defaults = (yaml.safe_load(file.read_text()) or {}).get("defaults", [])
        if any(isinstance(e, dict) and e.get("override /replay") in fixed for e in defaults):
            found.append(algo)
    return found
