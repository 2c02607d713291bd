"""Every check of a PBT search before its first member starts (``rlfw.config.preflight``): its
settings, a member's job with each value at both ends of its range, and a generation at least one
update phase long."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omegaconf import DictConfig, OmegaConf

from rlfw.errors import ConfigError, require
from rlfw.pbt.jobs import OWN_KEYS, member_overrides
from rlfw.pbt.population import Member
from rlfw.pbt.settings import Settings, read_settings


def check_pbt(config: DictConfig, overrides: list[str], checked_job: Callable[[list[str]], dict[str, Any]]) -> Settings:
    """``checked_job(overrides)``: the checked config of the job a member would run."""
    from rlfw.config.build import build_parts

    settings = read_settings(OmegaConf.to_container(config.hydra.sweeper, resolve=True))
    for override in overrides:
        key = override.lstrip("+~").partition("=")[0]
        if key in OWN_KEYS and key != "resume":  # resume=auto goes on with a stopped search
            raise ConfigError(
                f"{override}: a PBT search sets {key} in each member's job (member i's seed is"
                " hydra.sweeper.seed x population + i); leave it out"
            )
    if settings.metric == "eval/normalized_score" and not config.get("data"):
        raise ConfigError(
            "hydra.sweeper.metric=eval/normalized_score: only a run that learns from a dataset with references logs it"
        )
    # a member whose schedule holds both ends of each range (every choice): the run checks them all
    ends = {s.key: dict(enumerate(s.choices or s.ends())) for s in settings.params}
    cfg = checked_job(member_overrides(Member(0, settings.seed * settings.population, ends), overrides, None))
    try:
        parts = build_parts(cfg)
    except ConfigError as err:
        raise ConfigError(f"hydra.sweeper.params: {err}" if str(err).startswith("schedule.") else str(err)) from err
    if not parts.replay.fixed:
        phase = parts.replay.collect_steps * cfg["num_envs"]
        require(
            settings.interval >= phase,
            "hydra.sweeper.interval",
            settings.interval,
            f"shorter than one update phase of this run ({phase:,} env steps: replay.collect_steps x num_envs)",
        )
    return settings
