"""The population and its record, ``<sweep>/pbt.json``: who trains with which values, and what each
generation did. Exploiting and exploring are pure functions of the scores and a generator seeded by the
search's seed and the generation, so a search stopped anywhere and gone on decides as an uninterrupted one.

    rank the members by the metric (a failed member ranks last)
    the bottom ``copies`` each take a random member of the top ``copies``: its checkpoint, seed and schedule
    each value they copied is perturbed (times a factor) or, with resample_probability, drawn anew
    every member's schedule goes on from the generation's end with its values
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rlfw.pbt.settings import Settings

STATE = "pbt.json"


@dataclass
class Member:
    slot: int  # its folder: member_<slot>
    seed: int  # the run's seed (a copied member takes its source's: the checkpoint carries its generators)
    schedule: dict[str, dict[int, Any]]  # key -> {env step: value}: every value it has trained with
    copied_from: int | None = None  # the member whose checkpoint it took at the last generation's end

    def values(self) -> dict[str, Any]:
        """The values it trains with now (each key's last entry)."""
        return {key: steps[max(steps)] for key, steps in self.schedule.items()}


@dataclass
class Population:
    members: list[Member]
    generation: int = 0  # the generation to train next (== generations: done)
    # train: run the generation; exploit: stage the copies ``next`` decided; swap: swap them in
    phase: str = "train"
    next: list[Member] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)  # per generation: scores, values, copies

    def save(self, sweep: Path) -> None:
        """Whole or not at all (a new file renamed over the old)."""
        partial = sweep / (STATE + ".partial")
        partial.write_text(json.dumps(_plain(asdict(self)), indent=1))
        os.replace(partial, sweep / STATE)

    @staticmethod
    def load(sweep: Path) -> Population | None:
        path = sweep / STATE
        if not path.is_file():
            return None
        state = json.loads(path.read_text())
        members = lambda rows: [_member(row) for row in rows]  # noqa: E731
        return Population(
            members(state["members"]),
            state["generation"],
            state["phase"],
            members(state["next"]),
            state["history"],
        )


def _member(row: dict[str, Any]) -> Member:
    schedule = {key: {int(step): value for step, value in steps.items()} for key, steps in row["schedule"].items()}
    return Member(row["slot"], row["seed"], schedule, row["copied_from"])


def _plain(node: Any) -> Any:
    """JSON's keys are strings: env steps written as such and read back as ints (``_member``)."""
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def first_members(settings: Settings) -> list[Member]:
    """Each member's seed and its values drawn from their ranges, from env step 0."""
    rng = np.random.default_rng([settings.seed, 0])
    return [
        Member(slot, settings.seed * settings.population + slot, {s.key: {0: s.sample(rng)} for s in settings.params})
        for slot in range(settings.population)
    ]


def ranked(scores: list[float | None], mode: str) -> list[int]:
    """Member slots best first; a failed member (None) last, ties by slot."""
    sign = -1.0 if mode == "max" else 1.0
    return sorted(range(len(scores)), key=lambda i: (scores[i] is None, sign * (scores[i] or 0.0), i))


def exploit_and_explore(
    settings: Settings, members: list[Member], scores: list[float | None], generation: int, at: int
) -> list[Member]:
    """The members of the next generation, which starts at env step ``at``: the bottom quantile (and
    every failed member) copies a top-quantile member and changes its values."""
    rng = np.random.default_rng([settings.seed, generation + 1])
    order = ranked(scores, settings.mode)
    top = order[: settings.copies]
    failed = [i for i, s in enumerate(scores) if s is None]
    bottom = sorted(set(order[-settings.copies :]) | set(failed))
    spaces = {s.key: s for s in settings.params}
    result = [Member(m.slot, m.seed, {k: dict(v) for k, v in m.schedule.items()}) for m in members]
    for slot in bottom:
        source = members[top[int(rng.integers(len(top)))]]
        schedule = {key: dict(steps) for key, steps in source.schedule.items()}
        for key, value in source.values().items():
            space = spaces[key]
            resample = rng.random() < settings.resample_probability
            schedule[key][at] = space.sample(rng) if resample else space.perturb(value, settings.perturb, rng)
        result[slot] = Member(slot, source.seed, schedule, copied_from=source.slot)
    return result
