"""Datasets in Minari's format (the Farama standard: ``minari.load_dataset``), written from rlfw's own runs:
``python -m rlfw.dataset <run>`` (``rlfw/dataset/__main__.py``)."""
