from rlfw.replay import dataset, mixed, prioritized, rollout, uniform  # noqa: F401  (registers)
