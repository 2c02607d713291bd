from rlfw.explore import epsilon_greedy, greedy, sample  # noqa: F401  (registers)
