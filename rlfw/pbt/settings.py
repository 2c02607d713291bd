"""A population-based training search's settings (``hydra.sweeper`` of ``hydra/sweeper=rlfw_pbt``),
checked before any member starts, and the search space of the values it may change."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from rlfw.errors import ConfigError, require
from rlfw.values import suggest

# What a member's metrics.csv holds for every run: its greedy evaluations and its training episodes.
EVAL_METRICS = ("return_mean", "return_std", "normalized_score")
METRICS = (*(f"eval/{m}" for m in EVAL_METRICS), "train/episode_return", "train/episode_length")
KEYS = "population, interval, metric, mode, quantile, perturb, resample_probability, on_failure, seed, params"


@dataclass(frozen=True)
class Space:
    """One value's range: ``low``..``high`` (log-uniform with ``log``), or one of ``choices``."""

    key: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    integer: bool = False
    choices: tuple[Any, ...] = ()

    def sample(self, rng: Any) -> Any:
        if self.choices:
            return self.choices[int(rng.integers(len(self.choices)))]
        assert self.low is not None and self.high is not None
        if self.log:
            value = math.exp(rng.uniform(math.log(self.low), math.log(self.high)))
        else:
            value = rng.uniform(self.low, self.high)
        return self.fit(value)

    def perturb(self, value: Any, factors: tuple[float, ...], rng: Any) -> Any:
        """A range's value times one of ``factors``, kept in the range; a choice moves to a neighbour."""
        if self.choices:
            at = self.choices.index(value) if value in self.choices else 0
            step = -1 if rng.random() < 0.5 else 1
            return self.choices[min(len(self.choices) - 1, max(0, at + step))]
        factor = factors[int(rng.integers(len(factors)))]
        moved = self.fit(value * factor)
        if self.integer and moved == value and factor != 1:  # 1 x 1.2 rounds back to 1: move by one instead
            moved = self.fit(value + (1 if factor > 1 else -1))
        return moved

    def ends(self) -> tuple[Any, Any]:
        assert self.low is not None and self.high is not None
        return self.fit(self.low), self.fit(self.high)

    def fit(self, value: float) -> Any:
        assert self.low is not None and self.high is not None
        value = min(self.high, max(self.low, value))
        return round(value) if self.integer else float(value)


@dataclass(frozen=True)
class Settings:
    population: int
    interval: int  # env steps a generation trains (updates, learning from data)
    metric: str  # the metrics.csv column whose last value in a generation ranks the members
    mode: str  # max or min
    quantile: float  # the bottom quantile copies the top quantile
    perturb: tuple[float, ...]  # the factors a copied value is multiplied by
    resample_probability: float  # or it is drawn anew from its range
    on_failure: str  # replace: a failed member copies a top member; stop: the sweep stops
    seed: int  # the search's generator; member i trains with seed * population + i
    params: tuple[Space, ...] = field(default_factory=tuple)

    @property
    def copies(self) -> int:
        """Members copied each generation (and members copied from)."""
        return int(self.population * self.quantile)


def read_settings(node: Any) -> Settings:
    """The sweeper's node as plain values, every key checked in one line each."""
    assert isinstance(node, dict)
    known = set(KEYS.split(", ")) | {"_target_"}
    for key in node:
        if key not in known:
            valid = sorted(known - {"_target_"})
            raise ConfigError(f"hydra.sweeper.{key}: unknown key{suggest(key, valid)}; valid keys: {KEYS}")
    population, interval, quantile = node["population"], node["interval"], node["quantile"]
    require(isinstance(population, int) and population >= 2, "hydra.sweeper.population", population, "members, >= 2")
    require(isinstance(interval, int) and interval >= 1, "hydra.sweeper.interval", interval, "env steps, >= 1")
    require(0 < quantile <= 0.5, "hydra.sweeper.quantile", quantile, "the share copied each generation, in (0, 0.5]")
    require(
        int(population * quantile) >= 1,
        "hydra.sweeper.quantile",
        quantile,
        f"copies no member of {population} (population x quantile < 1)",
    )
    metric = node["metric"]
    require(metric in METRICS, "hydra.sweeper.metric", metric, f"a metric every run logs: {', '.join(METRICS)}")
    require(node["mode"] in ("max", "min"), "hydra.sweeper.mode", node["mode"], "max or min")
    factors = tuple(node["perturb"])
    require(
        len(factors) >= 1 and all(isinstance(f, (int, float)) and f > 0 for f in factors),
        "hydra.sweeper.perturb",
        list(factors),
        "factors > 0 a copied value is multiplied by, such as [0.8, 1.2]",
    )
    chance = node["resample_probability"]
    require(0 <= chance <= 1, "hydra.sweeper.resample_probability", chance, "a probability in [0, 1]")
    require(
        node["on_failure"] in ("replace", "stop"), "hydra.sweeper.on_failure", node["on_failure"], "replace or stop"
    )
    params = node.get("params") or {}
    require(
        bool(params),
        "hydra.sweeper.params",
        params,
        "the values PBT may change, e.g. {optim.lr: {low: 1e-4, high: 1e-2, log: true}}",
    )
    return Settings(
        population,
        interval,
        metric,
        node["mode"],
        quantile,
        factors,
        chance,
        node["on_failure"],
        int(node["seed"]),
        tuple(read_space(k, v) for k, v in flat(params).items()),
    )


def flat(params: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The search space by dotted key: ``optim.lr`` as the yaml writes it, or nested as the command
    line's ``+hydra.sweeper.params.optim.lr={low: ...}`` makes it."""
    found: dict[str, Any] = {}
    for name, node in params.items():
        key = f"{prefix}{name}"
        if isinstance(node, dict) and node and not set(node) & {"low", "high", "choices"}:
            found.update(flat(node, f"{key}."))
        else:
            found[key] = node
    return found


def read_space(key: str, node: Any) -> Space:
    where = f"hydra.sweeper.params.{key}"
    if isinstance(node, dict) and set(node) == {"choices"} and isinstance(node["choices"], list) and node["choices"]:
        return Space(key, choices=tuple(node["choices"]))
    if not isinstance(node, dict) or not {"low", "high"} <= set(node) <= {"low", "high", "log", "int"}:
        raise ConfigError(
            f"{where}={node!r}: expected {{low: <number>, high: <number>}} (with log: true for a log-uniform range,"
            " int: true for integers) or {choices: [...]}"
        )
    low, high, log = node["low"], node["high"], bool(node.get("log", False))
    require(
        isinstance(low, (int, float)) and isinstance(high, (int, float)) and low < high,
        where,
        node,
        "low < high, both numbers",
    )
    require(not log or low > 0, where, node, "a log-uniform range needs low > 0")
    return Space(key, float(low), float(high), log, bool(node.get("int", False)))
