from rlfw.loss import a2c, double_dqn, dqn, ppo  # noqa: F401  (registers)
