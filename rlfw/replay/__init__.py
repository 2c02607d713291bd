from rlfw.replay import dataset, prioritized, rollout, uniform  # noqa: F401  (registers)
