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
