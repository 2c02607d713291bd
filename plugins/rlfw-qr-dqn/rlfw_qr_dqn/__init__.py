"""QR-DQN for rlfw: ``network/head=quantile_q`` and ``loss=qr_dqn``, together ``algo=qr_dqn``."""

from rlfw_qr_dqn import head, loss  # noqa: F401  (registers)
