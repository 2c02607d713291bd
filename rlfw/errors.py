"""The one error type a user sees for bad configuration."""


class ConfigError(ValueError):
    """A configuration problem found before training starts.

    The message is one line naming the key, the value and what is allowed; the entry point prints it
    without a traceback and exits non-zero.
    """


def require(condition: bool, key: str, value, allowed: str) -> None:
    """Raise ``ConfigError`` as ``key=value: allowed`` unless ``condition`` holds."""
    if not condition:
        raise ConfigError(f"{key}={value!r}: {allowed}")


class Stopped(Exception):
    """A run stopped by a signal after writing its checkpoint; the message says how to resume it."""

    def __init__(self, message: str, signum: int):
        super().__init__(message)
        self.signum = signum
        self.code = 128 + signum  # the shell's convention (Ctrl-C: 130)


class RunError(RuntimeError):
    """A run that cannot go on: a checkpoint the disk cannot hold, a ddp rank gone. The checkpoints
    written before stay whole; the message is one line ending in the command that resumes."""


class EnvError(RuntimeError):
    """An env that breaks its own contract mid-run (an action mask with no action open); the message is
    one line naming the env step."""


class NonFiniteError(RuntimeError):
    """A non-finite loss term, gradient or parameter (``rlfw.run.nonfinite``); the message is one line."""
