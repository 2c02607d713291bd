"""rlfw: a plugin-based reinforcement-learning experiment framework (Lightning + Hydra)."""

from rlfw.registry import register

__version__ = "0.1.0"
__all__ = ["register", "__version__"]
