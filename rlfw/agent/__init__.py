"""Using what was trained: ``rlfw.load`` (an agent to act with), and what ``python -m rlfw.play`` and
``python -m rlfw.export`` build on."""
