"""Finished runs read back from their folders, and grouped into the variants a comparison shows."""

from __future__ import annotations

import glob
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from rlfw.errors import ConfigError

# keys whose values are repeats of one variant, never a variant of their own (a resumed run is the
# run it continues)
POOLED = ("seed", "resume")


@dataclass
class Run:
    folder: Path
    summary: dict[str, Any]  # summary.json
    config: dict[str, Any]  # resolved.yaml, flattened to dotted keys

    @cached_property
    def overrides(self) -> dict[str, str]:
        """The command line's ``key=value`` overrides of this run, as typed."""
        return dict(o.lstrip("+~").split("=", 1) for o in self.summary.get("overrides", []) if "=" in o)

    def value(self, key: str) -> Any:
        """``key`` as the command line names it: an override (``replay.n_step``, ``network/head``), a
        group choice (``algo``), or any key of the resolved config."""
        if key in self.overrides:
            return self.overrides[key]
        choices = self.summary.get("choices") or {}
        if key in choices:
            return choices[key]
        return self.config.get(key, self.config.get(f"{key.replace('/', '.')}.name"))


def find_runs(paths: list[str]) -> list[Run]:
    """The runs under ``paths`` (folders or globs): a folder with ``summary.json`` is a run, any other
    folder counts as the runs below it (a sweep). Refuses paths that name no run."""
    runs, empty = [], []
    for pattern in paths:
        matches = sorted(glob.glob(pattern)) or [pattern]
        found = [Path(p).parent for m in matches for p in sorted(glob.glob(f"{m}/**/summary.json", recursive=True))]
        found += [Path(m) for m in matches if (Path(m) / "summary.json").is_file()]
        if not found:
            empty.append(pattern)
        runs += [load(f) for f in sorted(set(found))]
    if empty:
        raise ConfigError(f"no finished runs (folders with summary.json) in {', '.join(empty)}")
    return runs


def load(folder: Path) -> Run:
    try:
        summary = json.loads((folder / "summary.json").read_text())
        resolved = (
            yaml.safe_load((folder / "resolved.yaml").read_text()) if (folder / "resolved.yaml").is_file() else {}
        )
    except (OSError, ValueError, yaml.YAMLError) as err:
        raise ConfigError(f"{folder}: cannot read the run ({err})") from err
    return Run(folder, summary, flatten(resolved or {}))


def flatten(node: Any, prefix: str = "") -> dict[str, Any]:
    if not isinstance(node, dict):
        return {prefix: node}
    flat: dict[str, Any] = {}
    for key, value in node.items():
        flat.update(flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    return flat


def variant_keys(runs: list[Run]) -> list[str]:
    """The keys whose values differ between runs, seeds pooled: the overrides first (what a sweep
    varied), and the resolved config's keys when the overrides alone do not tell the runs apart."""

    def differing(keys: set[str]) -> list[str]:
        return sorted(k for k in keys - set(POOLED) if len({repr(r.value(k)) for r in runs}) > 1)

    keys = differing(set().union(*(r.overrides.keys() for r in runs)))
    if not keys:
        keys = differing(set().union(*(r.config.keys() for r in runs)))
    return keys


def mixed_envs(runs: list[Run]) -> str | None:
    """A note when the runs are on more than one env: their returns are on different scales."""
    envs = sorted({str(r.summary["env"]) for r in runs if r.summary.get("env")})
    if len(envs) < 2:
        return None
    return (
        f"note: these runs are on {len(envs)} envs ({', '.join(envs)}): each env's returns are on its own scale,"
        " so the pooled figures mix them; compare one env at a time"
    )


def group(runs: list[Run], by: list[str] | None = None) -> dict[str, list[Run]]:
    """Runs by variant label (``algo=dqn,replay.n_step=3``), in first-seen order."""
    keys = by or variant_keys(runs)
    groups: dict[str, list[Run]] = {}
    for run in runs:
        label = ",".join(f"{k}={run.value(k)}" for k in keys) or "all runs"
        groups.setdefault(label, []).append(run)
    return groups
