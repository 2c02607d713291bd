"""A checkpoint's layout version and the names of a run's checkpoint files: constants that finding
and checking a checkpoint need, in a module that imports neither torch nor Lightning."""

# the checkpoint layout's version: a file from another layout is refused by name. 2: masks ride with the
# observation, which rows act is a field, the stream's state replaces the collector's league
FORMAT = 2
LAST, BEST = "last.ckpt", "best.ckpt"  # in a run's checkpoints/
