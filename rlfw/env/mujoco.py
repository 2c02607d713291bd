"""A gymnasium MuJoCo env (``env=mujoco env.id=Ant-v4``; presets ``env=halfcheetah``, ``hopper``, ...):
the ``gym`` option, with one line naming the extra when MuJoCo is not installed.

The presets pick the v4 envs on purpose (the published tables are v4), so gymnasium's note that v4 is
out of date is not repeated at every env made; MuJoCo's own warnings go to the ``rlfw`` log, its
compiler's deprecation notes (about the v4 models' XML) at debug level."""

from __future__ import annotations

import importlib.util
import logging
import warnings
from collections.abc import Sequence

from rlfw.env.gym import GymEnv
from rlfw.errors import require
from rlfw.registry import register

log = logging.getLogger("rlfw")


def mujoco_warning(message: str) -> None:
    level = logging.DEBUG if message.startswith("compiler attribute") else logging.WARNING
    log.log(level, "MuJoCo: %s", message)


@register("env", "mujoco")
class MujocoEnv(GymEnv):
    def __init__(
        self, id: str, kwargs: dict | None = None, solved_return: float | None = None, imports: Sequence[str] = ()
    ):
        installed = importlib.util.find_spec("mujoco") is not None
        require(installed, "env", "mujoco", f"{id} needs MuJoCo: pip install 'rlfw[mujoco]' (gymnasium[mujoco])")
        import mujoco

        mujoco.set_mju_user_warning(mujoco_warning)
        warnings.filterwarnings(
            "ignore", message=r".*The environment \w+-v4 is out of date", category=DeprecationWarning
        )
        super().__init__(id, kwargs, solved_return, imports)
