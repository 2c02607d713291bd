import cv2

from rlfw.config.build import build_parts
from rlfw.config.job import Job
from rlfw.run.train import train
from tests.helpers import config


def test_eval_video_is_one_greedy_episode_as_mp4(tmp_path):
    cfg = config("algo=ppo", "env=catch", "total_env_steps=256", "replay.num_steps=32", "eval.video=true")
    train(Job(cfg, build_parts(cfg), {"algo": "ppo", "env": "catch"}, [], []), tmp_path)
    video = cv2.VideoCapture(str(tmp_path / "eval.mp4"))
    assert video.isOpened()
    frames = int(video.get(cv2.CAP_PROP_FRAME_COUNT))
    ok, frame = video.read()
    assert ok and frame.shape == (10 * 16, 5 * 16, 3)
    assert frames == 10  # Catch's 9 steps after the reset frame
