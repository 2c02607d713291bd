"""Where rlfw's Hydra config tree is: ``conf/`` beside the package in a source checkout (editable
installs too), or ``rlfw/conf`` inside an installed wheel (pyproject maps ``conf/`` there)."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]  # rlfw/


def config_dir() -> str:
    checkout = PACKAGE.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "conf" / "config.yaml").is_file():
        return str(checkout / "conf")
    return str(PACKAGE / "conf")
