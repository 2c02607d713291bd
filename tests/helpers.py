"""Small shared builders for tests."""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import gymnasium as gym
import torch
from torch import nn

from rlfw.clock import Clock
from rlfw.config.preflight import composed as config
from rlfw.env.spec import EnvSpec
from rlfw.network.head.contract import NetworkHead
from rlfw.run.collector import Collector
from rlfw.run.timings import Timings

ROOT = Path(__file__).resolve().parents[1]
# SAC with actor, critics and batches a quarter of the default's width: the same state to save, resume
# and load, in less time (the encoder's size does not reach SAC's critics: critic_hidden sets theirs)
SMALL_SAC = ("network.encoder.hidden=[64,64]", "network.head.critic_hidden=[64,64]", "replay.batch_size=64")


def run(run_dir: Path, *overrides: str) -> dict:
    """A run in this process, composed from ``overrides`` as the command line would; returns its summary."""
    from rlfw.config.build import build_parts
    from rlfw.config.job import Job
    from rlfw.run.train import train

    cfg = config(*overrides)
    return train(Job(cfg, build_parts(cfg), {"algo": "test", "env": "test"}, list(overrides), []), run_dir)


def spec(obs_dim: int = 4, actions: int = 2) -> EnvSpec:
    return EnvSpec("Test-v0", (obs_dim,), gym.spaces.Discrete(actions), None)


class Both:
    """A replay that hands every step the collector stores to several stores."""

    def __init__(self, *stores):
        self.stores = stores

    def add(self, step):
        for store in self.stores:
            store.add(step)


class TableQ(nn.Module):
    """Q(s, .) read from a learnable table row per integer state: easy to build cases by hand."""

    outputs = frozenset({"q"})

    def __init__(self, table: list[list[float]]):
        super().__init__()
        self.table = nn.Parameter(torch.tensor(table, dtype=torch.float32))

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"q": self.table[obs.long()]}


class MaskedTable(NetworkHead):
    """Q(s, .) from a table row per integer state (the observation's first entry), its other entries the
    open actions."""

    scores = "q"

    def __init__(self, table: list[list[float]]):
        super().__init__()
        self.table = torch.nn.Parameter(torch.tensor(table))
        self.mask_columns = (1, 1 + self.table.shape[1])

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.open_to({"q": self.table[obs[:, 0].long()]}, obs)


class Stand(NetworkHead):
    """Stands for a head whose outputs are ``fn(obs)`` (nothing, by default: for rules that act at random)."""

    def __init__(self, fn: Callable[[torch.Tensor], dict[str, torch.Tensor]] = lambda obs: {}):
        super().__init__()
        self.fn = fn

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return self.fn(obs)


def collector(envs, net, explore, replay, spec: EnvSpec | None = None, seed: int = 0, world: int = 1) -> Collector:
    """A collector of ``envs`` (reset with ``seed``) on a fresh clock; ``net`` None: a stand-in head,
    for rules that act at random; ``spec``: a one-agent env's of the envs' spaces by default."""
    shape = tuple(envs.single_observation_space.shape)
    spec = spec or EnvSpec("Test-v0", shape, envs.single_action_space, None)
    return Collector(envs, net or Stand(), explore, replay, spec, Clock(), Timings(), seed, torch.device("cpu"), world)


def venv_with_our_dependencies(path: Path) -> Path:
    """A bare venv that sees this interpreter's packages (not the base Python's, which may have none)
    through a .pth file, pip and setuptools included (it has none of its own). The .pth puts them after
    the venv's own site-packages and does not run their .pth files, so the editable rlfw of this
    interpreter stays invisible. Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", path], check=True)
    python = path / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site.stdout.strip()) / "outer_deps.pth").write_text("\n".join(sorted(ours)) + "\n")
    return python


@contextmanager
def one_build_at_a_time():
    """setuptools builds in the source folder (build/, *.egg-info): xdist workers take turns."""
    with open(Path(tempfile.gettempdir()) / "rlfw-tests-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def build_wheel(source: Path, out: Path) -> Path:
    with one_build_at_a_time():
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", out, source],
            check=True,
            capture_output=True,
        )
    (wheel,) = out.glob("*.whl")
    return wheel


def pip_install(python: Path, *args) -> None:
    """Installs with what ``python`` already sees: no dependencies, no build isolation, no index."""
    with one_build_at_a_time():
        subprocess.run(
            [python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", *args],
            check=True,
            capture_output=True,
        )


def venv_with_rlfw(path: Path, rlfw_wheel: Path) -> Path:
    """``venv_with_our_dependencies`` with rlfw installed from a built wheel, as a user's would be."""
    python = venv_with_our_dependencies(path)
    pip_install(python, rlfw_wheel)
    return python


def made_once(tmp_path_factory, name: str, make: Callable[[Path], object]) -> Path:
    """A folder that ``make`` fills once per test session, whichever xdist process asks first: the
    other waits for it and reuses it (pytest-xdist's ``--dist loadgroup`` no longer groups tests with
    pytest 9: pytest-xdist issue 1386). Without xdist, a folder of this process."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    root = tmp_path_factory.getbasetemp().parent  # this session's, shared by its xdist processes
    folder = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / f"{name}.done").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (root / f"{name}.done").touch()
    return folder


def run_in_process(args: list[str], capsys) -> tuple[int, str, str]:
    """``python -m rlfw args`` in this process (rlfw.__main__.main, as the command line calls it): its
    exit code, stdout and stderr. For what a process adds nothing to: bad input (with the
    ``never_train`` fixture), runs and sweeps that end by themselves; signals and kills need one."""
    from rlfw.__main__ import main

    argv, sys.argv = sys.argv, ["rlfw", *args]
    try:
        main()
        code = 0
    except SystemExit as exit_info:
        code = exit_info.code if isinstance(exit_info.code, int) else 1
    finally:
        sys.argv = argv  # the worker's own, for what runs after
    out = capsys.readouterr()
    return code, out.out, out.err


def check_refused(code: int, out: str, err: str, folder: Path) -> None:
    """One line on stderr naming the problem, exit code 2, no traceback, and nothing in ``folder``."""
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rlfw: config error: "), err
    assert "Traceback" not in out + err and not out.strip()
    assert len(lines[0]) > len("rlfw: config error: ") + 10  # says what is wrong
    assert list(folder.iterdir()) == []  # no run folder, no sweep folder, no outputs/


def run_cli(*args: str, cwd: Path = ROOT, timeout: int = 600, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rlfw", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


def wandb_records(run_dir: Path) -> dict:
    """What an offline W&B run wrote into ``run_dir/wandb``, read back from its ``run-<id>.wandb`` file
    (LevelDB's log format: 32 KiB blocks of checksummed chunks, each record a protobuf ``Record``):
    the run record, config, history rows, final summary, metric definitions and artifacts."""
    from wandb.proto import wandb_internal_pb2

    (path,) = (run_dir / "wandb").glob("offline-run-*/run-*.wandb")
    data, block, header = path.read_bytes(), 32 * 1024, 7
    assert data[:4] == b":W&B", f"{path} is not a W&B run file"
    out = {"run": None, "config": {}, "history": [], "summary": {}, "metrics": [], "artifacts": []}
    pos, chunks = header, []
    while pos + header <= len(data):
        if block - pos % block < header:  # a block's tail too short for a chunk header is padding
            pos += block - pos % block
            continue
        _, length, kind = struct.unpack("<IHB", data[pos : pos + header])
        chunks.append(data[pos + header : pos + header + length])
        pos += header + length
        if kind not in (1, 4):  # FIRST and MIDDLE chunks: the record goes on
            continue
        record = wandb_internal_pb2.Record()
        record.ParseFromString(b"".join(chunks))
        chunks = []
        kind_of = record.WhichOneof("record_type")
        if kind_of == "run":
            out["run"] = record.run
            out["config"].update({i.key: json.loads(i.value_json) for i in record.run.config.update})
        elif kind_of == "config":
            out["config"].update({i.key: json.loads(i.value_json) for i in record.config.update})
        elif kind_of == "history":
            out["history"].append(
                {i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in record.history.item}
            )
        elif kind_of == "summary":
            out["summary"].update(
                {i.key or "/".join(i.nested_key): json.loads(i.value_json) for i in record.summary.update}
            )
        elif kind_of == "metric":
            out["metrics"].append((record.metric.name or record.metric.glob_name, record.metric.step_metric))
        elif kind_of == "artifact":
            out["artifacts"].append((record.artifact.name, record.artifact.type))
    return out


def run_printed(line: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Runs the command a stop line ends with (``... resume with: python -m rlfw ...``), as a user would."""
    command = shlex.split(line.split("resume with: ", 1)[1])
    assert command[:3] == [Path(sys.executable).name, "-m", "rlfw"], command
    return subprocess.run([sys.executable, *command[1:]], capture_output=True, text=True, cwd=cwd)
