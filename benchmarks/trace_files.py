"""Which of rlfw's files one env step and one update run through, for a few kinds of env: the measure of
how far a capability's branches spread (docs/design.md, "One step and one update").

    python benchmarks/trace_files.py            # PPO CartPole, DQN with masks, MAPPO, Connect Four self-play
    python benchmarks/trace_files.py --list     # and the files of each

It trains each config for a few updates, then traces (``sys.setprofile``) the collector's next vector
step and the next update (``rlfw.run.update.update``), and counts the distinct files under ``rlfw/`` whose
functions ran. Imports and set-up are not counted: the loop is.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import rlfw
from rlfw.run import collector, module

ROOT = Path(rlfw.__file__).parent
TRACES = {
    "PPO CartPole": ["algo=ppo", "total_env_steps=4096"],
    "DQN with masks (Taxi)": ["algo=dqn", "env=taxi", "total_env_steps=1200", "replay.learning_starts=1000"],
    "MAPPO MPE Simple Spread": ["algo=mappo", "env=mpe_spread", "total_env_steps=6144"],
    "PPO Connect Four, league": ["algo=ppo", "env=connect_four", "league.past=0.5", "total_env_steps=4096"],
}


class Trace:
    """Records the rlfw files whose functions run while it is on (``with trace:``)."""

    def __init__(self) -> None:
        self.files: set[str] = set()

    def __call__(self, frame, event, arg):
        if event == "call":
            path = Path(frame.f_code.co_filename)
            if path.is_relative_to(ROOT):
                self.files.add(str(path.relative_to(ROOT.parent)))

    def __enter__(self):
        sys.setprofile(self)

    def __exit__(self, *exc):
        sys.setprofile(None)


STEP, UPDATE = collector.Collector._step, module.update


def files_of(overrides: list[str]) -> set[str]:
    """The files of one vector step after the run's third update, and of the update after that step."""
    trace, armed, updates = Trace(), {"step": False, "update": False}, [0]

    def step(self):
        if not armed["step"]:
            return STEP(self)
        armed["step"], armed["update"] = False, True
        with trace:
            return STEP(self)

    def update(*args, **kwargs):
        updates[0] += 1
        armed["step"] |= updates[0] == 3  # past the first updates' one-off work
        if not armed["update"]:
            return UPDATE(*args, **kwargs)
        armed["update"] = False
        with trace:
            return UPDATE(*args, **kwargs)

    collector.Collector._step, module.update = step, update
    try:
        with tempfile.TemporaryDirectory() as folder:
            rlfw.train([*overrides, "eval.every=100000", "threads=1"], Path(folder) / "run")
    finally:
        collector.Collector._step, module.update = STEP, UPDATE
    return trace.files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print each trace's files")
    args = parser.parse_args()
    for name, overrides in TRACES.items():
        files = files_of(overrides)
        print(f"{name}: {len(files)} files")
        if args.list:
            print("".join(f"  {f}\n" for f in sorted(files)), end="")


if __name__ == "__main__":
    main()
