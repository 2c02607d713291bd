"""A logger that closes the run itself once ``summary.json`` is written (W&B's run summary and upload)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class Finishing:
    def finish(self, summary: dict[str, Any], run_dir: Path) -> None:  # pragma: no cover
        raise NotImplementedError
