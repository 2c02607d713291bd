from rlfw.loss import a2c, bc, c51, cql, discrete_cql, double_dqn, dqn, iql, ppo, sac, td3, td3_bc, vdn  # noqa: F401  (registers)
