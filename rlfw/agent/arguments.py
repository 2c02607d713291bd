"""``key=value`` arguments for ``python -m rlfw.play`` and ``python -m rlfw.export``, checked the way
a run's config is: unknown keys with the nearest valid one, wrong types."""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, NoReturn, TypeVar

import yaml

from rlfw.errors import ConfigError
from rlfw.values import check_values

T = TypeVar("T")


def parse(argv: list[str], schema: type[T]) -> tuple[str, T]:
    """The run folder or checkpoint (the first argument) and ``schema`` filled from ``key=value`` pairs
    (values read as YAML: ``true``, ``10``, ``human``)."""
    usage = f"usage: <run folder or .ckpt> {' '.join(f'[{f.name}=...]' for f in dataclasses.fields(schema))}"  # type: ignore[arg-type]
    if not argv or "=" in argv[0]:
        raise ConfigError(f"name a run folder or a .ckpt file first; {usage}")
    pairs: dict[str, Any] = {}
    for arg in argv[1:]:
        key, sep, value = arg.partition("=")
        if not sep:
            raise ConfigError(f"{arg!r}: expected key=value; {usage}")
        pairs[key] = yaml.safe_load(value)
    return argv[0], schema(**check_values(schema, pairs, ""))


def fail(program: str, err: Exception) -> NoReturn:
    print(f"{program}: {err}", file=sys.stderr)
    sys.exit(2)
