"""A checkpoint's layout version and the names of a run's checkpoint files: constants that finding
and checking a checkpoint need, in a module that imports neither torch nor Lightning."""

FORMAT = 1  # the checkpoint layout's version: a file from another layout is refused by name
LAST, BEST = "last.ckpt", "best.ckpt"  # in a run's checkpoints/
