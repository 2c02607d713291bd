"""``python -m rlfw.export <run folder or .ckpt> format=torchscript|onnx [out=...] [which=best]``:
the trained policy as one self-contained file (``rlfw.agent.export``), with a JSON beside it that
says what goes in and comes out. ``out`` defaults to ``<run>/export/policy.pt`` or ``.onnx``."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from rlfw.agent.arguments import fail, parse
from rlfw.agent.export import FORMATS, export, require_format
from rlfw.agent.load import load
from rlfw.errors import ConfigError


@dataclass
class Export:
    format: str
    out: str | None = None
    which: str = "best"


def main(argv: list[str] | None = None) -> None:
    try:
        path, args = parse(sys.argv[1:] if argv is None else argv, Export)
        require_format(args.format)  # before loading anything
        agent = load(path, args.which)
        default = agent.checkpoint.parent.parent / "export" / f"policy{FORMATS[args.format]}"
        policy, spec = export(agent, args.format, Path(args.out) if args.out else default)
    except ConfigError as err:
        fail("rlfw.export", err)
    print(f"wrote {policy} and {spec}")


if __name__ == "__main__":
    main()
