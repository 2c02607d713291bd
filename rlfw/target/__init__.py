from rlfw.target import hard, none, polyak  # noqa: F401  (registers)
