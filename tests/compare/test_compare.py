"""``python -m rlfw.compare`` and the statistics behind it and behind the sweep summary."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rlfw.compare.plot import curves
from rlfw.compare.runs import Run, find_runs, group, mixed_envs
from rlfw.compare.stats import iqm_interval, row
from tests.helpers import run


def fake(
    folder: str, overrides: list[str], evals: list[tuple[int, float, float]], solved_return: float | None = 100.0
) -> Run:
    summary = {
        "overrides": overrides,
        "solved_return": solved_return,
        "env": "Fake-v0",
        "evals": [{"env_steps": s, "wall_seconds": w, "return_mean": r} for s, w, r in evals],
        "eval_return_mean": evals[-1][2],
    }
    return Run(Path(folder), summary, {})


def test_iqm_and_its_interval_come_from_rliable():
    iqm, low, high = iqm_interval([1.0, 2.0, 3.0, 10.0])
    assert iqm == pytest.approx(2.5)  # the mean of the middle half: 2 and 3
    assert 1.0 <= low < iqm < high <= 10.0


def test_the_same_runs_give_the_same_interval_whatever_numpy_s_global_generator_did():
    first = iqm_interval([3.0, 1.0, 8.0, 2.0, 5.0])
    np.random.random(17)  # rliable resamples from the global generator
    assert iqm_interval([3.0, 1.0, 8.0, 2.0, 5.0]) == first
    state = np.random.get_state()[1].copy()
    iqm_interval([1.0, 2.0])
    assert np.array_equal(np.random.get_state()[1], state)  # and it is left as it was


def test_a_row_pools_seeds_and_times_the_first_solved_evaluation():
    runs = [
        fake("a", ["seed=0"], [(1000, 2.0, 50.0), (2000, 4.0, 120.0), (3000, 6.0, 90.0)]),
        fake("b", ["seed=1"], [(1000, 3.0, 100.0)]),
        fake("c", ["seed=2"], [(1000, 1.0, 10.0), (2000, 2.0, 20.0)]),
    ]
    r = row("v", runs)
    assert r["runs"] == 3 and r["final_return_mean"] == pytest.approx((90 + 100 + 20) / 3)
    assert r["solved_runs"] == 2 and r["env_steps_to_solve"] == 1500 and r["wall_seconds_to_solve"] == 3.5
    assert r["best_iqm"] == pytest.approx(iqm_interval([120.0, 100.0, 20.0])[0])  # each run's best evaluation


def test_another_metric_of_the_evaluations_fills_the_row_and_the_curves():
    runs = [fake("a", [], [(1000, 1, 0.0), (2000, 2, 0.0)]), fake("b", [], [(1000, 1, 0.0), (2000, 2, 0.0)])]
    for one, wins in zip(runs, ([0.5, 0.9], [0.7, 1.0]), strict=True):
        for e, w in zip(one.summary["evals"], wins, strict=True):
            e["vs_random_player_1_win"] = w
    assert row("v", runs, "vs_random_player_1_win")["final_return_mean"] == pytest.approx(0.95)
    assert curves(runs, "env_steps", "vs_random_player_1_win")[1].tolist() == [[0.5, 0.9], [0.7, 1.0]]


def test_curves_share_one_grid_and_keep_a_finished_runs_last_evaluation():
    runs = [fake("a", [], [(500, 1, 1.0), (1000, 2, 2.0), (1500, 3, 3.0)]), fake("b", [], [(1000, 1, 10.0)])]
    grid, values = curves(runs, "env_steps")
    assert grid.tolist() == [1000, 1500]  # from where both runs have an evaluation
    assert values.tolist() == [[2.0, 3.0], [10.0, 10.0]]


def test_runs_group_by_the_overrides_that_differ_seeds_pooled():
    runs = [
        fake(str(i), [f"algo={a}", f"seed={s}", "total_env_steps=9"], [(1, 1, 0.0)])
        for i, (a, s) in enumerate([("dqn", 0), ("dqn", 1), ("ppo", 0)])
    ]
    runs.append(fake("3", ["algo=ppo", "seed=1", "total_env_steps=9", "resume=auto"], [(1, 1, 0.0)]))
    assert {k: len(v) for k, v in group(runs).items()} == {"algo=dqn": 2, "algo=ppo": 2}
    assert list(group(runs, ["seed"])) == ["seed=0", "seed=1"]


def test_runs_on_several_envs_get_a_note_runs_on_one_none():
    one = [fake("a", [], [(1, 1, 0.0)]), fake("b", [], [(1, 1, 0.0)])]
    assert mixed_envs(one) is None
    one[1].summary["env"] = "Other-v0"
    assert mixed_envs(one) == (
        "note: these runs are on 2 envs (Fake-v0, Other-v0): each env's returns are on its own scale, so the"
        " pooled figures mix them; compare one env at a time"
    )


@pytest.fixture(scope="module")
def four_runs(tmp_path_factory):
    """PPO and A2C on CartPole, two seeds each, written as a sweep folder would hold them."""
    root = tmp_path_factory.mktemp("sweep")
    for i, (algo, seed) in enumerate([("ppo", 0), ("ppo", 1), ("a2c", 0), ("a2c", 1)]):
        run(root / f"{i}_{algo}", f"algo={algo}", f"seed={seed}", "total_env_steps=1024", "eval.every=512")
    return root


def compare_cli(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rlfw.compare", *args], cwd=cwd, capture_output=True, text=True)


def test_compare_writes_a_plot_and_a_table_per_variant(four_runs, tmp_path):
    result = compare_cli(str(four_runs), "--x", "wall_seconds", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "compare.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with open(tmp_path / "compare.csv") as f:
        rows = {r["variant"]: r for r in csv.DictReader(f)}
    assert set(rows) == {"algo=ppo", "algo=a2c"} and all(r["runs"] == "2" for r in rows.values())
    finals = [json.loads(p.read_text())["eval_return_mean"] for p in sorted(four_runs.glob("*_ppo/summary.json"))]
    assert float(rows["algo=ppo"]["final_return_mean"]) == pytest.approx(np.mean(finals))
    assert "| algo=a2c | 2 |" in (tmp_path / "compare.md").read_text() and "| algo=a2c | 2 |" in result.stdout


def test_compare_by_a_key_and_a_glob(four_runs, tmp_path):
    result = compare_cli(f"{four_runs}/*_ppo", f"{four_runs}/2_a2c", "--by", "seed", "--out", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "| seed=0 | 2 |" in result.stdout and "| seed=1 | 1 |" in result.stdout
    assert len(find_runs([f"{four_runs}/*_ppo"])) == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["nowhere"], "rlfw.compare: no finished runs (folders with summary.json) in nowhere"),
        (
            ["RUNS", "--by", "replay.n_stepz"],
            "rlfw.compare: --by replay.n_stepz: no run has this key; keys that differ between these runs: algo",
        ),
        (
            ["RUNS", "--metric", "win_rate"],
            "rlfw.compare: --metric win_rate: not in every evaluation of these runs; they all have return_mean,"
            " return_std",
        ),
    ],
)
def test_compare_refuses_bad_input_in_one_line(four_runs, tmp_path, args, message):
    result = compare_cli(*[str(four_runs) if a == "RUNS" else a for a in args], cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.strip() == message and not list(tmp_path.iterdir())
