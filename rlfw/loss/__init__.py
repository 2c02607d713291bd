from rlfw.loss import a2c, c51, double_dqn, dqn, ppo, sac, td3, vdn  # noqa: F401  (registers)
