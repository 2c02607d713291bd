"""The Lightning ``Trainer`` flags rlfw passes on, and what it says of them."""

import pytest

from rlfw.config import trainer


@pytest.mark.parametrize(
    "precision, device, instructions, warned",
    [
        ("bf16-mixed", "cpu", None, True),  # emulated: several times slower than 32-true
        ("bf16-mixed", "cpu", "avx512_bf16", False),
        ("bf16-mixed", "cuda", None, False),  # the GPU's own bf16, whatever the CPU has
        ("32-true", "cpu", None, False),
        ("16-mixed", "cuda", None, False),
    ],
)
def test_bf16_mixed_is_warned_of_only_on_a_cpu_that_would_emulate_it(
    monkeypatch, precision, device, instructions, warned
):
    monkeypatch.setattr(trainer, "native_bf16", lambda: instructions)
    warning = trainer.emulated_bf16(precision, device)
    assert (warning is not None) == warned
    if warned:
        assert "trainer.precision=bf16-mixed" in warning and "32-true" in warning


def test_16_mixed_on_a_cpu_runs_as_bf16_mixed_so_the_warning_covers_it():
    import lightning.pytorch as pl

    with pytest.warns(UserWarning, match="Using `precision='bf16-mixed'` instead"):
        pl_trainer = pl.Trainer(**trainer.RUN_CONTROL, logger=False, accelerator="cpu", precision="16-mixed")
    assert str(pl_trainer.precision) == "bf16-mixed"
