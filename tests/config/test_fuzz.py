"""Hundreds of generated malformed overrides, each refused in one clear line with nothing written (no
run folder, no outputs/): the command line's syntax cases through its entry point (exit code 2, no
traceback), the values, keys and combinations through ``rlfw.train``, which composes and checks a
config as the command line does in half the time (Hydra composes a command line's config twice); a
sample of both kinds also through a real ``python -m rlfw``."""

from __future__ import annotations

import random
from functools import cache

import pytest

import rlfw
from rlfw.errors import ConfigError
from tests.helpers import check_refused, config, run_cli, run_in_process

ALGOS = ("ppo", "dqn", "a2c", "double_dqn")
GROUPS = ("env", "network/encoder", "network/head", "explore", "replay", "target", "loss", "optim", "logger")
WRONG = {  # a leaf's type -> values of other types (as typed on a command line)
    bool: ["abc", "3", "[true]", "0.5"],
    int: ["abc", "true", "2.5", "[1,2]", "{a:1}"],
    float: ["abc", "false", "[0.1]", "{a:1}"],
    str: ["5", "[a]", "true"],
    list: ["abc", "5", "{a:1}"],
    dict: ["abc", "5", "[1]"],
}
# Values in range for their type that no run can use.
OUT_OF_RANGE = [
    "seed=-1",
    "seed=99999999999",
    "total_env_steps=0",
    "num_envs=0",
    "num_envs=1000000000000000000",
    "threads=0",
    "threads=1000000000000000000",
    "gamma=1.5",
    "gamma=-0.1",
    "log_every=0",
    "progress_every_s=0",
    "checkpoint.every=0",
    "eval.every=0",
    "eval.episodes=0",
    "eval.episodes=100000",
    "trainer.devices=2",
    "trainer.devices=0",
    "trainer.accumulate_grad_batches=0",
    "trainer.gradient_clip_val=-1",
    "trainer.precision=8",
    "trainer.precision=bf16-true",
    "trainer.accelerator=tpu",
    "trainer.profiler=fancy",
    "objective=best",
    "optim.lr=0",
    "optim.lr=-1",
    "optim.eps=-1",
    "optim.weight_decay=-0.1",
    "+optim.groups.actor.lr=-1",
    "+optim.groups.critic.eps=-1",
    "replay.num_steps=0",
    "replay.epochs=0",
    "replay.minibatches=0",
    "replay.minibatches=3",
    "replay.minibatches=512",
    "replay.gae_lambda=1.5",
    "replay.num_steps=100000",
    "loss.clip=0",
    "loss.clip_value=-1",
    "loss.target_kl=0",
    "loss.vf_coef=-1",
    "loss.ent_coef=-0.5",
    "network.encoder.hidden=[]",
    "network.encoder.hidden=[0]",
    "network.encoder.hidden=[-4]",
    "network.encoder.activation=swish",
    "network.precision=fp16",
    "network.encoder.hidden=[100000,100000]",
    "algo=dqn replay.capacity=0",
    "algo=dqn replay.capacity=10000000000",
    "algo=dqn replay.batch_size=0",
    "algo=dqn replay.batch_size=200000",
    "algo=dqn replay.n_step=0",
    "algo=dqn replay.learning_starts=-1",
    "algo=dqn replay.collect_steps=0",
    "algo=dqn replay.updates=0",
    "algo=dqn explore.start=1.5",
    "algo=dqn explore.end=-0.1",
    "algo=dqn explore.decay_steps=-1",
    "algo=dqn target.period=0",
    "algo=dqn loss.td_loss=l1",
    "algo=dqn loss.clip_delta=0",
    "algo=dqn target=polyak target.tau=0",
    "algo=dqn target=polyak target.tau=1.5",
    "algo=dqn target.tau=0",
    "algo=dqn replay=prioritized replay.alpha=-1",
    "algo=dqn replay=prioritized replay.beta=2",
    "algo=dqn replay=prioritized replay.eps=0",
    "algo=a2c optim.alpha=2",
    "env=gym env.id=NoSuch-v0",
    "env=gym env.id=CartPole-v9",
    "env=gym env.id=nosuchmodule:Foo-v0",
    "env=gym env.imports=[nosuchmodule]",
    "env=gym env.id=CartPole-v1 +env.kwargs.nosuchkwarg=1",
    "env=gym",
    "algo=double_dqn env=pendulum",
    "env.solved_return=abc",
]
# Combinations that can never learn, or that contradict each other.
COMBINATIONS = [
    "algo=dqn replay.learning_starts=5000 total_env_steps=3000",
    "algo=dqn replay.capacity=500 replay.learning_starts=1000",
    "algo=dqn replay.n_step=5 replay.capacity=4",
    "algo=ppo target=hard",
    "algo=ppo target=polyak",
    "algo=dqn target=none",
    "algo=double_dqn target=none",
    "loss=dqn",
    "algo=dqn loss=ppo",
    "algo=dqn explore=sample",
    "algo=ppo explore=epsilon_greedy",
    "algo=ppo network/head=q",
    "algo=dqn network/head=actor_critic",
    "algo=dqn replay=rollout",
    "algo=ppo replay=uniform",
    "algo=ppo total_env_steps=100",
    "algo=ppo tuned=dqn_cartpole",
    "tuned=nope",
    "algo=dqn tuned=ppo_cartpole",
    "algo=dqn env=gym env.id=Pendulum-v1",
    "algo=dqn +replay.alpha=0.9",
    "+explore.start=0.5",
    "algo=dqn +replay.num_steps=5",
    "+optim.groups.trunk.lr=0.1",
    "+optim.groups.actor=0.1",
    "algo=a2c +optim.groups.critic.betas=[0.9,0.99]",
    "replay.num_steps=1 num_envs=1 replay.minibatches=1",
]
SYNTAX = [
    "seed=[",
    "seed=[1",
    "seed=}",
    "=1",
    "seed",
    "seed==1",
    "+=1",
    "seed=${",
    "seed=${nope}",
    "seed=${oc.env:NO_SUCH_VAR_RLFW}",
    "seed='unterminated",
    "~nosuchkey",
    "~eval.nosuchkey",
    "++",
    "algo=",
    "algo=nope",
    "env=nope",
    "replay=nope",
    "network/head=nope",
    "network/encoder=nope",
    "hydra/launcher=nope",
    "optim=sgd",
    "logger=wandb_typo",
    "replay=null",
    "network/head=null",
    "network/encoder=null",
    "target=null",
    "loss=null",
    "env=null",
    "eval=null",
    "trainer=null",
    "network=null",
    "+trainer.max_steps=10",
    "+trainer.max_time=00:00:01:00",
    "+trainer.fast_dev_run=true",
    "+trainer.limit_train_batches=5",
    "+trainer.overfit_batches=1",
    "+trainer.log_every_n_steps=-1",
    "+trainer.min_steps=100000000",
    "+trainer.logger=false",
    "+trainer.callbacks=[]",
    "~trainer.devices",
    "~seed",
    "~env.id",
    "~replay",
    "-m seed=0,-1",
    "-m algo=dqn,nope",
    "-m num_envs=1,0",
]


def leaves(node: dict, prefix: str = ""):
    for key, value in node.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and key not in ("kwargs", "groups"):
            yield from leaves(value, path + ".")
        else:
            yield path, value


@cache  # read twice while collecting: four compositions, each a quarter second
def keys_by_algo() -> dict[str, tuple[str, object]]:
    """Every leaf key of the four algorithms' configs, with the first algorithm that has it."""
    found = {}
    for algo in ALGOS:
        for path, value in leaves(config(f"algo={algo}")):
            found.setdefault(path, (algo, value))
    return found


def wrong_types() -> list[str]:
    """Two wrong values for every key, taken in turn from its type's list: each wrong value of a type is
    tried on many keys of that type, and every key gets a scalar and (mostly) a container of the wrong kind."""
    cases, seen = [], dict.fromkeys(WRONG, 0)
    for path, (algo, value) in keys_by_algo().items():
        if value is None or path.endswith(".name"):  # a wrong name is an unknown option (SYNTAX)
            continue
        wrong, turn = WRONG[type(value)], seen[type(value)]
        seen[type(value)] += 1
        cases += [f"algo={algo} {path}={wrong[(turn + i) % len(wrong)]}" for i in (0, 1)]
    return cases


def unknown_keys() -> list[str]:
    """A misspelling of every key, and a made-up key at every level."""
    keys = keys_by_algo()
    cases = {f"algo={algo} +{path[:-1]}=1" for path, (algo, _) in keys.items() if len(path.rpartition(".")[2]) > 3}
    parents = {path.rpartition(".")[0] for path in keys} | {"optim.groups.actor"}
    return sorted(
        cases | {f"+{parent + '.' if parent else ''}nosuchkey=1" for parent in parents if parent != "env.kwargs"}
    )


VALUES = wrong_types() + unknown_keys() + OUT_OF_RANGE + COMBINATIONS
CASES = VALUES + SYNTAX


def test_there_are_at_least_300_distinct_cases():
    assert len(set(CASES)) == len(CASES) >= 300


@pytest.mark.parametrize("case", VALUES)
def test_a_malformed_value_is_refused_in_one_line(case, tmp_path, monkeypatch, never_train):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as refused:
        rlfw.train(case.split(), run_dir=tmp_path / "run")
    message = str(refused.value)
    assert len(message.splitlines()) == 1 and len(message) > 10 and "Traceback" not in message, message
    assert list(tmp_path.iterdir()) == []  # no run folder, no outputs/


@pytest.mark.parametrize("case", SYNTAX)
def test_a_malformed_command_line_is_refused_in_one_line(case, tmp_path, monkeypatch, capsys, never_train):
    monkeypatch.chdir(tmp_path)
    args = [*case.split(), f"hydra.run.dir={tmp_path}/run", f"hydra.sweep.dir={tmp_path}/sweep"]
    check_refused(*run_in_process(args, capsys), tmp_path)


@pytest.mark.parametrize("case", random.Random(0).sample(CASES, 4))
def test_a_sample_is_refused_the_same_way_as_a_subprocess(case, tmp_path):
    result = run_cli(*case.split(), f"hydra.run.dir={tmp_path}/run", f"hydra.sweep.dir={tmp_path}/sweep", cwd=tmp_path)
    check_refused(result.returncode, result.stdout, result.stderr, tmp_path)
