"""``eval.video=true``: an MP4 of one greedy evaluation episode, written into the run folder at the end.

The env option supplies ``render_env()``: one evaluation env that renders RGB frames and gives the
same observations as its vector envs (for Atari, the gymnasium backend's preprocessing). OpenCV,
already installed for gymnasium's Atari preprocessing, encodes the MP4.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from rlfw.explore.greedy import Greedy


def record(env, net, path: Path, seed: int, device: torch.device) -> Path:
    """Plays one greedy episode of ``env.render_env()`` and writes it to ``path``."""
    import cv2  # only when a video is asked for: not on every run's start-up

    single, fps = env.render_env()
    obs, _ = single.reset(seed=seed)
    frames, done, greedy = [single.render()], False, Greedy()
    while not done:
        with torch.inference_mode():
            action, _ = greedy.act(net(torch.as_tensor(np.asarray(obs)[None], device=device)), 0)
        obs, _, terminated, truncated, _ = single.step(int(action[0]))
        frames.append(single.render())
        done = terminated or truncated
    single.close()
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, (width, height))
    for frame in frames:
        writer.write(cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
    writer.release()
    return path
