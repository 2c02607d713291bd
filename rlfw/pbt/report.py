"""What a finished search leaves beside its members: ``pbt.png`` (the population's eval curves and
the values over env steps), ``pbt.md`` (each member's lineage and values by generation) and
``found/schedule.yaml``, the best member's schedule as a config a single run follows."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

from rlfw.pbt.population import Population, ranked
from rlfw.pbt.settings import Settings


def report(sweep: Path, settings: Settings, population: Population, fixed: list[str]) -> None:
    last = population.history[-1]["members"]
    best = ranked([m["score"] for m in last], settings.mode)[0]
    member = population.members[best]
    plot(sweep / "pbt.png", settings, population, best)
    table = lineage(settings, population)
    (sweep / "pbt.md").write_text(table)
    found = sweep / "found" / "schedule.yaml"
    found.parent.mkdir(exist_ok=True)
    again = [*fixed, f"seed={member.seed}", "stop_when_solved=false"]  # the lineage's seed: its run again
    command = "python -m rlfw " + shlex.join(["--config-dir", str(sweep), "+found=schedule", *again])  # pastes back
    header = (
        f"# @package _global_\n# The schedule of the best member of {sweep.name} (member_{best}, {settings.metric}"
        f" {last[best]['score']:.6g}; seed {member.seed}). Run it alone:\n#   {command}\n"
    )
    found.write_text(header + yaml.safe_dump({"schedule": nested(member.schedule)}, sort_keys=False))
    print(
        f"\nPBT ({len(population.members)} members, {len(population.history)} generations; {sweep / 'pbt.png'}, pbt.md):"
    )
    print(table, end="")
    print(f"best: member_{best}; its schedule: {found}\n  run it alone: {command}")


def nested(schedule: dict[str, dict[int, Any]]) -> dict[str, Any]:
    """``{"optim.lr": {...}}`` as the config writes it: ``{"optim": {"lr": {...}}}``."""
    tree: dict[str, Any] = {}
    for key, steps in schedule.items():
        node = tree
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = dict(steps)
    return tree


def lineage(settings: Settings, population: Population) -> str:
    """One row per generation and member: its score, its values and whose checkpoint it went on from."""
    keys = [s.key for s in settings.params]
    head = ["generation", "to env steps", "member", "seed", settings.metric, *keys, "went on from"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for record in population.history:
        for m in record["members"]:
            score = "failed" if m["score"] is None else f"{m['score']:.6g}"
            values = [
                f"{m['values'][k]:.4g}" if isinstance(m["values"][k], float) else str(m["values"][k]) for k in keys
            ]
            cells = [str(record["generation"] + 1), f"{record['env_steps']:,}", f"member_{m['slot']}", str(m["seed"])]
            source = "its own" if m["copied_from"] is None else f"member_{m['copied_from']}'s"
            rows.append("| " + " | ".join([*cells, score, *values, source]) + " |")
    return "\n".join(rows) + "\n"


def plot(path: Path, settings: Settings, population: Population, best: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = [s.key for s in settings.params]
    fig, axes = plt.subplots(1 + len(keys), 1, figsize=(8, 3.2 + 2.2 * len(keys)), sharex=True, squeeze=False)
    colors = plt.get_cmap("tab10")
    last: dict[int, tuple[int, float]] = {}  # each member's last evaluation so far: where its next segment starts
    start = 0
    for record in population.history:
        ends = {}
        for m in record["members"]:
            slot = m["slot"]
            color, width = colors(slot % 10), 2.4 if slot == best else 1.0
            origin = last.get(slot if m["copied_from"] is None else m["copied_from"])  # a copy goes on from its source
            points = ([origin] if origin else []) + [tuple(e) for e in m["evals"]]
            if points:
                steps, returns = zip(*points, strict=True)
                label = f"member_{slot}" if not start else None
                axes[0][0].plot(steps, returns, color=color, linewidth=width, label=label, marker=".")
                ends[slot] = points[-1]
            for row, key in enumerate(keys, start=1):
                axes[row][0].plot([start, record["env_steps"]], [m["values"][key]] * 2, color=color, linewidth=width)
        last.update(ends)
        start = record["env_steps"]
    axes[0][0].set_ylabel("greedy eval return")
    axes[0][0].set_title(f"PBT: {len(population.members)} members; thick: the best at the end (member_{best})")
    axes[0][0].legend(fontsize="x-small", ncol=4)
    for row, space in enumerate(settings.params, start=1):
        axes[row][0].set_ylabel(space.key)
        if space.log:
            axes[row][0].set_yscale("log")
    for ax in axes[:, 0]:
        ax.grid(alpha=0.3)
    axes[-1][0].set_xlabel("env steps")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
