"""Writes a finished run's replay, or episodes played by one of its checkpoints, as a Minari dataset.

``python -m rlfw.dataset <run> [--id ID] [--play N [--checkpoint best|last|FILE] [--greedy]]`` writes under
``MINARI_DATASETS_PATH`` (default ``~/.minari/datasets``). Bad input ends in one line, exit code 2."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

from rlfw.errors import ConfigError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rlfw.dataset", description=__doc__.splitlines()[0])
    p.add_argument("run", type=Path, help="a finished run's folder (its checkpoints/ and summary.json)")
    p.add_argument("--id", help="the dataset's id, namespace/name-vN (default: rlfw/<env>/<run folder>-v0)")
    p.add_argument(
        "--reference-episodes", type=int, default=10, help="episodes of the random policy's reference return"
    )
    p.add_argument(
        "--play", type=int, metavar="N", help="play N episodes with a checkpoint instead of writing the replay"
    )
    p.add_argument(
        "--checkpoint",
        default="best",
        help="with --play: best (D4RL's expert kind), last, or a .ckpt file (an earlier one: the medium kind)",
    )
    p.add_argument("--greedy", action="store_true", help="with --play: greedy actions, not the run's training rule")
    return p


def default_id(run: Path) -> str:
    summary = json.loads((run / "summary.json").read_text()) if (run / "summary.json").is_file() else {}
    env = str(summary.get("env", "env")).split(":")[-1].replace("/", "-").lower()
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in run.resolve().name).strip("-")
    return f"rlfw/{env.rsplit('-v', 1)[0]}/{name}-v0"


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    from rlfw.dataset.write import Play, write

    dataset_id = args.id or default_id(args.run)
    play = None if args.play is None else Play(args.play, args.checkpoint, args.greedy)
    try:
        if play is None and (args.greedy or args.checkpoint != "best"):
            raise ConfigError("rlfw.dataset: --checkpoint and --greedy choose how --play N plays; give --play N")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # Minari's "set an author" reminders: set already
            dataset = write(args.run, dataset_id, args.reference_episodes, play)
    except ConfigError as err:
        print(err, file=sys.stderr)
        sys.exit(2)
    spec = dataset.spec
    print(
        f"{dataset_id}: {spec.total_episodes} episodes, {spec.total_steps:,} steps (minari.load_dataset({dataset_id!r}))"
    )


if __name__ == "__main__":
    main()
