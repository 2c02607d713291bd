"""``python -m rlfw.plugins``: every registered option, where it comes from, and its keys."""

from rlfw.plugins.listing import main

main()
