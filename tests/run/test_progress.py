"""Progress output: a live bar on a terminal, plain lines in logs and CI."""

import logging
from types import SimpleNamespace

from rlfw.run.progress import Progress


def fake_module(env_steps: int) -> SimpleNamespace:
    stream = SimpleNamespace(recent=lambda: ([10.0, 20.0], [5, 6]))
    progress = SimpleNamespace(env_steps=env_steps, updates=7, evals=[{"return_mean": 42.0}], now=lambda: env_steps)
    return SimpleNamespace(progress=progress, stream=stream, steps_per_second=lambda: 1000.0)


def test_live_bar_shows_env_steps_eta_and_returns(capsys):
    progress = Progress(1000, every_s=0.0, live=True)
    progress.update(fake_module(250))
    progress.close()
    err = capsys.readouterr().err
    assert "250/1.00k" in err and "<" in err  # steps done / total, elapsed<remaining
    assert "episode return 15.0 | eval return 42.0 | updates 7" in err


def test_plain_lines_when_not_on_a_terminal(caplog):
    progress = Progress(1000, every_s=0.0, live=False)
    with caplog.at_level(logging.INFO, logger="rlfw"):
        progress.update(fake_module(500))
    assert "env steps       500 / 1,000 ( 50%)" in caplog.text and "eval return 42.0" in caplog.text
