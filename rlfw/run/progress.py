"""Progress of a run: a live tqdm bar on a terminal, a plain log line every few seconds elsewhere."""

from __future__ import annotations

import logging
import sys
import time

import numpy as np

log = logging.getLogger("rlfw")


class Progress:
    def __init__(self, total: int, every_s: float, unit: str = "env steps", live: bool | None = None):
        self.total, self.every_s, self.unit = total, every_s, unit  # the run's unit: env steps, or updates
        self.live = sys.stderr.isatty() if live is None else live
        self.next_report = time.monotonic() + every_s
        self.bar = None
        if self.live:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=f" {self.unit}", unit_scale=True, dynamic_ncols=True, file=sys.stderr)

    def update(self, module) -> None:
        """Called after each collect phase: moves the bar; every ``every_s`` seconds, says more."""
        if self.bar is not None:
            self.bar.update(module.progress.now() - self.bar.n)
        now = time.monotonic()
        if now < self.next_report:
            return
        self.next_report = now + self.every_s
        recent = module.stream.recent()[0]
        episode = f"{np.mean(recent):.1f}" if recent else "n/a"
        last_eval = f"{module.progress.evals[-1]['return_mean']:.1f}" if module.progress.evals else "n/a"
        if self.bar is not None:
            self.bar.set_postfix_str(
                f"episode return {episode} | eval return {last_eval} | updates {module.progress.updates:,}"
            )
        else:
            log.info(
                "%s %9s / %s (%3.0f%%) | %6.0f %s/s | episode return %8s | eval return %s | updates %d",
                self.unit,
                f"{module.progress.now():,}",
                f"{self.total:,}",
                100 * module.progress.now() / self.total,
                module.steps_per_second(),
                self.unit,
                episode,
                last_eval,
                module.progress.updates,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
