"""rlfw: a plugin-based reinforcement-learning experiment framework (Lightning + Hydra)."""

__version__ = "0.1.0"
