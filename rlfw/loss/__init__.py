from rlfw.loss import a2c, double_dqn, dqn, ppo, sac, td3  # noqa: F401  (registers)
