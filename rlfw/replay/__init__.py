from rlfw.replay import prioritized, rollout, uniform  # noqa: F401  (registers)
