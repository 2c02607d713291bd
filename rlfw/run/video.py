"""``eval.video=true``: an MP4 of one greedy evaluation episode, written into the run folder at the end.

The env option supplies ``render_env()``: one evaluation env that renders RGB frames and gives the
same observations as its vector envs (for Atari, the gymnasium backend's preprocessing). OpenCV,
already installed for gymnasium's Atari preprocessing, encodes the MP4.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rlfw.env.spec import env_action
from rlfw.run.evaluate import Policy


def record(env, policy: Policy, path: Path, seed: int) -> Path:
    """Plays one episode of ``env.render_env()`` with ``policy`` and writes it to ``path``."""
    import cv2  # only when a video is asked for: not on every run's start-up

    single, fps = env.render_env()
    obs, _ = single.reset(seed=seed)
    frames, done, to_env = [single.render()], False, env_action(single.action_space)
    while not done:
        action = policy(np.asarray(obs)[None])[0]
        obs, _, terminated, truncated, _ = single.step(to_env(action))
        frames.append(single.render())
        done = terminated or truncated
    single.close()
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (width, height))
    for frame in frames:
        writer.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
    writer.release()
    return path
