"""A member's job: the command line's overrides with its seed, its schedule and where it pauses."""

from __future__ import annotations

from rlfw.pbt.population import Member

# The keys the sweeper sets in every member's job (and so takes out of the command line's overrides).
OWN_KEYS = ("seed", "pause_at", "resume", "stop_when_solved")


def member_overrides(member: Member, fixed: list[str], pause_at: int | None) -> list[str]:
    """The sweep's overrides ``fixed`` and the member's own, to ``pause_at`` (None: the run's end)."""
    schedule = [
        f"++schedule.{key}={{{','.join(f'{s}:{v!r}' for s, v in steps.items())}}}"
        for key, steps in member.schedule.items()
    ]
    own = [f"seed={member.seed}", f"pause_at={pause_at if pause_at is not None else 'null'}", "resume=auto"]
    return [*fixed, *schedule, *own, "stop_when_solved=false", f"hydra.sweep.subdir=member_{member.slot}"]
