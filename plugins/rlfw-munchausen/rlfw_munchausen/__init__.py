"""Munchausen-DQN for rlfw: ``loss=munchausen_dqn``, with DQN's parts ``algo=munchausen_dqn``."""

from rlfw_munchausen import loss  # noqa: F401  (registers)
