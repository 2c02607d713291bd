"""The Lightning ``Trainer`` flags: what rlfw sets itself, and Lightning's own check of the rest."""

from __future__ import annotations

import logging
import warnings
from typing import Any

from rlfw.errors import ConfigError
from rlfw.machine import native_bf16

QUIET_WARNINGS = (
    r".*LeafSpec.*",  # torch 2.13 + Lightning: one FutureWarning per batch
    r".*`dataloader_iter`.*",  # we pull batches ourselves, on purpose (see RLModule.training_step)
    r".*does not have many workers.*",  # the env stream must run in the main process
)


# rlfw owns the run's length, logging, checkpoints and console output; cfg["trainer"] adds the rest.
RUN_CONTROL: dict[str, Any] = dict(
    max_epochs=1,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
    num_sanity_val_steps=0,
)


# Applied by rlfw's own update (rlfw/run/update.py), which steps the optimizer itself: Lightning's manual
# optimization refuses them as Trainer flags.
UPDATE_FLAGS = ("gradient_clip_val", "gradient_clip_algorithm", "accumulate_grad_batches")


def lightning_flags(trainer: dict[str, Any]) -> dict[str, Any]:
    """``cfg["trainer"]`` without the flags rlfw's update applies."""
    return {k: v for k, v in trainer.items() if k not in UPDATE_FLAGS}


def quiet_lightning() -> None:
    for pattern in QUIET_WARNINGS:
        warnings.filterwarnings("ignore", message=pattern)
    logging.getLogger("lightning.pytorch").setLevel(logging.WARNING)


def check_trainer(cfg: dict[str, Any]) -> None:
    """Lightning's own checks of ``cfg["trainer"]`` (the flags rlfw's schema leaves to it), as a ``ConfigError``."""
    import lightning.pytorch as pl  # seconds: only once every other check has passed
    from lightning.fabric.utilities.exceptions import MisconfigurationException

    quiet_lightning()
    try:
        pl.Trainer(**RUN_CONTROL, logger=False, **lightning_flags(cfg["trainer"]))
    except (TypeError, ValueError, ImportError, RuntimeError, MisconfigurationException) as err:
        raise ConfigError(f"trainer: {err}") from err


def emulated_bf16(precision: str, device: str) -> str | None:
    """A warning for bf16 autocast on a CPU without bf16 instructions: valid, but torch emulates bf16
    there, and a run takes several times as long as in 32-true.
    ``precision`` is the trainer's own: on a CPU Lightning runs ``16-mixed`` as ``bf16-mixed``."""
    if precision != "bf16-mixed" or device != "cpu" or native_bf16():
        return None
    return (
        "trainer.precision=bf16-mixed: this CPU has no bf16 instructions (avx512_bf16, amx_bf16), so torch"
        " emulates bf16 and training runs several times slower than with 32-true, the default"
    )
