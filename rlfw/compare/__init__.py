"""``python -m rlfw.compare <run folders or globs> [--by KEY ...] [--x env_steps|wall_seconds] [--metric NAME] [--out DIR]``

Reads finished runs (a sweep folder counts as its runs), groups them into variants by the keys that
differ between them (seeds pooled) or by ``--by``, and writes into ``--out``:
``compare.png`` (greedy eval return against env steps or wall seconds: each variant's mean over its
runs, with a 95% bootstrap band), ``compare.md`` and ``compare.csv`` (final return mean, std, IQM with
its 95% interval, the IQM of each run's best evaluation with its interval, runs solved, median env
steps and wall seconds to the env's solved return).
``--metric`` tables and plots another figure of the evaluations instead of the return: with many
agents the team's return or one agent's, in a game a seat's win rate.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rlfw.compare.plot import plot
from rlfw.compare.runs import find_runs, group, mixed_envs, variant_keys
from rlfw.compare.table import table, write_table
from rlfw.errors import ConfigError


def compare(paths: list[str], by: list[str] | None, x: str, out: Path, metric: str = "return_mean") -> str:
    runs = find_runs(paths)
    logged = set.intersection(*(set(e) for r in runs for e in r.summary["evals"])) - {
        "env_steps",
        "updates",
        "wall_seconds",
    }
    if metric not in logged:
        raise ConfigError(
            f"--metric {metric}: not in every evaluation of these runs; they all have {', '.join(sorted(logged))}"
        )
    note = mixed_envs(runs)
    if note:
        print(note, file=sys.stderr)
    if by:
        unknown = [k for k in by if all(r.value(k) is None for r in runs)]
        if unknown:
            differ = ", ".join(variant_keys(runs)) or "none"
            raise ConfigError(f"--by {unknown[0]}: no run has this key; keys that differ between these runs: {differ}")
    groups = group(runs, by)
    text = write_table(table(groups, metric), out, "compare", metric)
    plot(groups, x, out / "compare.png", metric)
    return text


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rlfw.compare", description=__doc__.split("\n\n")[1].replace("\n", " ").replace("``", "")
    )
    parser.add_argument("paths", nargs="+", help="run folders, sweep folders or globs")
    parser.add_argument("--by", nargs="+", metavar="KEY", help="group by these keys (default: the keys that differ)")
    parser.add_argument(
        "--x", choices=["env_steps", "updates", "wall_seconds"], default="env_steps", help="the curve's x axis"
    )
    parser.add_argument(
        "--metric",
        default="return_mean",
        help="what an evaluation measured to table and plot (default: return_mean; many agents: team_return_mean,"
        " return_mean_<agent>; a game: vs_random_score, vs_random_<seat>_win, ...)",
    )
    parser.add_argument("--out", type=Path, default=Path("."), help="where compare.png/.md/.csv go (default: here)")
    return parser


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        text = compare(args.paths, args.by, args.x, args.out, args.metric)
    except ConfigError as err:
        print(f"rlfw.compare: {err}", file=sys.stderr)
        sys.exit(2)
    print(text, end="")
    print(f"wrote {args.out / 'compare.png'}, compare.md and compare.csv")
