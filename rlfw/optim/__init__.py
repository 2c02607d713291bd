from rlfw.optim import optimizers  # noqa: F401  (registers)
