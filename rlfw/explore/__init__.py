from rlfw.explore import continuous, epsilon_greedy, greedy, sample  # noqa: F401  (registers)
