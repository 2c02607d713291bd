"""A job: one run's checked config, its built parts, and what Hydra says about it. Made before
training (``rlfw.config.preflight.prepare``) and read by the run and its loggers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rlfw.state.resume import Resume

if TYPE_CHECKING:  # rlfw.config.build imports torch: a config error is answered before it loads
    from rlfw.config.build import Parts


@dataclass
class Job:
    cfg: dict[str, Any]  # the checked config that runs (written as resolved.yaml)
    parts: Parts
    choices: dict[str, str | None]  # Hydra's group choices: algo, env, ...
    overrides: list[str]  # the command line's overrides of this job
    dropped: list[str]  # warnings for keys a tuned file set for a sibling option
    sweep: str | None = None  # a multirun's sweep folder name
    resume: Resume | None = None  # the checkpoint a resumed run goes on from (resume=...)
    untuned: str | None = None
    init: dict[str, Any] | None = (
        None  # the checkpoint a new run starts from (init_from=...)  # the line a run with no tuned file for its algo and env starts with
    )
