"""Config values checked against a class's typed ``__init__``: an option's class (``rlfw.registry``)
or a dataclass of ``rlfw.config.schema``. Unknown keys (with the nearest valid one), missing keys, wrong types."""

from __future__ import annotations

import difflib
import inspect
import logging
import types
import typing
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from rlfw.errors import ConfigError

log = logging.getLogger("rlfw")
SEQUENCES = (list, tuple, Sequence)  # typing.get_origin of list[int], tuple[int, ...], Sequence[int]


def parameters(cls: Any) -> set[str]:
    return {
        p.name
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


def suggest(name: str, valid: list[str]) -> str:
    """`` (did you mean X?)`` for a near miss of one of ``valid``, else nothing."""
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def dotted(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def unknown_key(key: str, name: str, owner: str, valid: list[str]) -> ConfigError:
    where = f" for {owner}" if owner else ""
    return ConfigError(
        f"{dotted(key, name)}: unknown key{where}{suggest(name, valid)}; valid keys: {', '.join(valid) or 'none'}"
    )


def check_values(
    cls: Any,
    values: Mapping[str, Any],
    key: str,
    supplied: AbstractSet[str] = frozenset(),
    siblings: Mapping[str, type] | None = None,
    user_keys: frozenset[str] = frozenset(),
    dropped: list[str] | None = None,
) -> dict[str, Any]:
    """Check config ``values`` (the node at ``key``) against ``cls.__init__``'s annotated parameters,
    less the ``supplied`` ones the run hands over; return the values to use. ``siblings`` are the
    registered options of ``cls``'s kind (None for a dataclass of ``rlfw.config.schema``).

    A key no sibling option takes is an error (a typo), and so is a missing required one. A key
    that only another option takes is dropped with a warning when a file set it (a tuned file sets
    ``target.period`` for ``target=hard``, and the user chose ``target=polyak``); when the user set it
    on the command line (``user_keys`` holds its dotted path), it is an error. The warnings go to
    ``dropped`` when given (the caller logs them once the whole config passed), else to the log.
    """
    hints = typing.get_type_hints(cls.__init__)
    configurable = sorted(parameters(cls) - supplied)
    owner = f"{key}={cls.registered_name}" if siblings is not None else key
    kept = {}
    for name, value in values.items():
        if name not in configurable:
            owners = [n for n, other in (siblings or {}).items() if name in parameters(other) - supplied]
            if not owners:
                raise unknown_key(key, name, owner, configurable)
            others = " / ".join(f"{key}={o}" for o in owners)
            if dotted(key, name) in user_keys:
                raise ConfigError(
                    f"{dotted(key, name)}={value!r}: {owner} does not take {name} ({others} does);"
                    f" valid keys: {', '.join(configurable) or 'none'}"
                )
            warning = f"ignoring {dotted(key, name)}={value!r}: it is a key of {others}, not of {owner}"
            if dropped is None:
                log.warning(warning)
            else:
                dropped.append(warning)
            continue
        if name in hints and not _matches(value, hints[name]):
            raise ConfigError(f"{dotted(key, name)}={value!r}: expected {type_name(hints[name])}")
        kept[name] = value
    missing = [n for n in _required(cls) - supplied if n not in values]
    if missing:
        raise ConfigError(f"{dotted(key, missing[0])}: missing; {owner or 'the config'} needs it")
    return kept


def _required(cls: Any) -> set[str]:
    return {
        p.name
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }


def _matches(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin is typing.Literal:
        return any(value == v and type(value) is type(v) for v in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in SEQUENCES or hint in (list, tuple):
        args = typing.get_args(hint)
        return (
            isinstance(value, Sequence)
            and not isinstance(value, str)
            and (not args or all(_matches(v, args[0]) for v in value))
        )
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        return isinstance(value, Mapping)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def type_name(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return "one of " + ", ".join(str(v) for v in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        return " or ".join("null" if h is type(None) else type_name(h) for h in typing.get_args(hint))
    if origin in SEQUENCES:  # a yaml list, whichever sequence type the signature names
        return f"list[{type_name(typing.get_args(hint)[0])}]" if typing.get_args(hint) else "list"
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).replace("typing.", "")
