"""metrics.csv's writer when the run folder is deleted under the run: it neither makes the folder
again nor raises, so the run's own one-line stop is what the user reads."""

from __future__ import annotations

import shutil

from rlfw.loggers import ContinuedWriter


def test_a_folder_deleted_before_the_rows_are_written_is_not_made_again(tmp_path):
    writer = ContinuedWriter(str(tmp_path / "run"))
    writer.log_metrics({"return": 1.0}, step=1)
    shutil.rmtree(tmp_path / "run")
    writer.save()
    assert not (tmp_path / "run").exists()


def test_a_folder_deleted_while_the_rows_are_written_raises_nothing(tmp_path, monkeypatch):
    writer = ContinuedWriter(str(tmp_path / "run"))
    writer.log_metrics({"return": 1.0}, step=1)
    opened = writer._fs.open

    def open_after_an_rmtree(path, *args, **kwargs):  # the folder goes between the writer's checks and its open
        shutil.rmtree(tmp_path / "run")
        return opened(path, *args, **kwargs)

    monkeypatch.setattr(writer._fs, "open", open_after_an_rmtree)
    writer.save()
    assert not (tmp_path / "run").exists()


def test_rows_go_on_after_the_rows_before_them(tmp_path):
    writer = ContinuedWriter(str(tmp_path / "run"))
    writer.log_metrics({"return": 1.0}, step=1)
    writer.save()
    again = ContinuedWriter(str(tmp_path / "run"))  # a resumed run's writer
    again.log_metrics({"return": 2.0}, step=2)
    again.save()
    assert (tmp_path / "run" / "metrics.csv").read_text().splitlines() == ["return,step", "1.0,1", "2.0,2"]
