"""``python -m rlfw.compare``."""

from rlfw.compare import main

main()
