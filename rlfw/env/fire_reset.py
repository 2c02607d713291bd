"""Press FIRE after each reset, for games that wait for it (the gymnasium backend's missing piece:
ale-py's vector env does this itself with ``use_fire_reset``)."""

from __future__ import annotations

import gymnasium as gym


class FireReset(gym.Wrapper):
    def reset(self, **kwargs):
        self.env.reset(**kwargs)
        obs, _, terminated, truncated, info = self.env.step(1)  # 1 is FIRE in every ALE minimal action set that has it
        if terminated or truncated:
            return self.env.reset()
        return obs, info
