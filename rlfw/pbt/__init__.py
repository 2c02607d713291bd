"""Population-based training: its settings, population, member folders and report (``hydra/sweeper=rlfw_pbt``)."""
