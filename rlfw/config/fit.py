"""Do the chosen options fit together? Read from what each option's class declares (its contract:
``rlfw/<kind>/contract.py``), before any option is built; and, once the env is known, whether its rows
fit the loss (``check_acting``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlfw.config.algos import algos_learning_from_data
from rlfw.config.path import config_dir
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.registry import lookup, options

KEYS = {"head": "network.head", "explore": "explore", "replay": "replay", "target": "target", "loss": "loss"}


def _names(keys) -> str:
    return ", ".join(sorted(keys))


def losses_reading(outputs: frozenset[str]) -> list[str]:
    """The registered losses that read every one of ``outputs``."""
    return [name for name, cls in sorted(options("loss").items()) if outputs <= cls.needs]


def heads_with(has: Callable[[Any], bool]) -> list[str]:
    """The registered heads ``has`` is true of (``lambda head: head.has_policy``: pi(.|s))."""
    return [name for name, cls in sorted(options("head").items()) if has(cls)]


def replays_with(has: Callable[[Any], bool]) -> str:
    """The registered replays ``has`` is true of, as a list in words."""
    return ", ".join(name for name, cls in sorted(options("replay").items()) if has(cls))


def contracts() -> dict[str, type]:
    """Each kind's contract class: the declared capabilities of heads, explore rules, replays, target
    rules and losses."""
    from rlfw.explore.contract import ExploreRule
    from rlfw.loss.contract import LossHead
    from rlfw.network.head.contract import NetworkHead
    from rlfw.replay.contract import Replay
    from rlfw.target.contract import TargetRule

    return {"head": NetworkHead, "explore": ExploreRule, "replay": Replay, "target": TargetRule, "loss": LossHead}


@dataclass(frozen=True)
class Chosen:
    """The option classes a config chose, and their registered names by kind."""

    head: Any
    explore: Any
    replay: Any
    target: Any
    loss: Any
    name: dict[str, str]


def chosen_options(cfg: dict[str, Any]) -> Chosen:
    """The classes of the config's options; one line for one that does not subclass its kind's contract."""
    nodes = {"head": cfg["network"]["head"], **{kind: cfg[kind] for kind in KEYS if kind != "head"}}
    option = {kind: lookup(kind, nodes[kind].get("name"), f"{KEYS[kind]}.name") for kind in KEYS}
    names = {kind: cls.registered_name for kind, cls in option.items()}
    for kind, base in contracts().items():  # where each kind declares what the checks below read
        if not issubclass(option[kind], base):
            raise ConfigError(
                f"{KEYS[kind]}={names[kind]}: {option[kind].__qualname__} does not subclass"
                f" {base.__module__}.{base.__qualname__}, whose attributes declare what an option of this kind needs"
            )
    return Chosen(**option, name=names)


def check_fit(cfg: dict[str, Any]) -> None:
    """Do the chosen options fit together? Checked on their classes, before any is built."""
    chosen = chosen_options(cfg)
    if chosen.head.recurrent:  # before the outputs: what a user mixing it with DQN or SAC needs to hear
        check_recurrent(cfg, chosen)
    check_outputs(cfg, chosen)
    check_data(chosen)
    check_learning_from_data(cfg, chosen)
    loss, target, name = chosen.loss, chosen.target, chosen.name
    if loss.needs_target and not target.uses_target:
        raise ConfigError(
            f"target={name['target']}: loss={name['loss']} needs a target network; use target=hard or target=polyak"
        )
    if target.uses_target and not loss.needs_target:
        raise ConfigError(f"target={name['target']}: loss={name['loss']} uses no target network; use target=none")


def check_recurrent(cfg: dict[str, Any], chosen: Chosen) -> None:
    """A recurrent head learns from whole env columns in time order, split between minibatches; it
    cannot carry memory over steps its row does not act, nor play a league's past versions."""
    head = chosen.name["head"]
    if not chosen.replay.sequences:
        raise ConfigError(
            f"network/head={head}: a recurrent head learns from whole episodes in time order;"
            f" replay={chosen.name['replay']} samples steps out of order (replays that keep them:"
            f" {replays_with(lambda replay: replay.sequences)})"
        )
    minibatches, num_envs = cfg["replay"].get("minibatches", 1), cfg["num_envs"]
    if num_envs % minibatches:
        raise ConfigError(
            f"replay.minibatches={minibatches}: a recurrent head trains on whole env columns, so the minibatches"
            f" must divide num_envs={num_envs}"
        )
    if cfg["env"].get("agents_leave"):
        raise ConfigError(
            f"env.agents_leave=true: a recurrent head's memory would carry a left agent's steps into its next"
            f" episode; network/head={head} is recurrent (a feed-forward head)"
        )
    if cfg["league"]["past"] > 0:
        raise ConfigError(
            f"league.past={cfg['league']['past']}: past versions play one step at a time without memory;"
            f" network/head={head} is recurrent (league.past=0, or a feed-forward head)"
        )


def check_outputs(cfg: dict[str, Any], chosen: Chosen) -> None:
    """The head gives what the explore rule and the loss read, and the loss trains all of the head."""
    head, name = chosen.head, chosen.name
    for who, user in ((f"explore={name['explore']}", chosen.explore), (f"loss={name['loss']}", chosen.loss)):
        if not user.needs <= head.outputs:
            raise ConfigError(
                f"{who}: needs network outputs {_names(user.needs)}; network/head={name['head']} gives"
                f" {_names(head.outputs)}"
            )
        if user.needs_distribution and not head.has_policy:
            raise ConfigError(
                f"{who}: needs a policy, an action distribution from the head; network/head={name['head']}"
                f" gives {_names(head.outputs)} (heads with a policy: {', '.join(heads_with(lambda h: h.has_policy))})"
            )
    untrained = head.trained_through - chosen.loss.needs
    if untrained:
        raise ConfigError(
            f"loss={name['loss']}: network/head={name['head']} is trained through its outputs"
            f" {_names(untrained)}, which this loss does not read (losses that do: {', '.join(losses_reading(untrained))})"
        )
    if cfg["network"]["head"].get("noisy") and name["explore"] != "greedy":
        raise ConfigError(
            f"explore={name['explore']}: network.head.noisy=true explores through its noisy layers;"
            " use explore=greedy (or network.head.noisy=false)"
        )
    if chosen.loss.needs_critic and not head.has_critics:
        raise ConfigError(
            f"loss={name['loss']}: needs critics Q(s, a) from the head; network/head={name['head']} has none"
            f" (heads with critics: {', '.join(heads_with(lambda h: h.has_critics))})"
        )


def check_data(chosen: Chosen) -> None:
    """The replay gives what the loss reads, hears what it signals, and the explore rule records what the
    replay needs."""
    loss, replay, name = chosen.loss, chosen.replay, chosen.name
    missing = loss.needs_batch - replay.provides
    if missing:
        raise ConfigError(
            f"loss={name['loss']}: needs batch fields {_names(missing)} that replay={name['replay']} does not provide"
            f" (it provides {_names(replay.provides)})"
        )
    unheard = replay.needs_signals - loss.signals
    if unheard:
        giving = [n for n, cls in sorted(options("loss").items()) if replay.needs_signals <= cls.signals]
        raise ConfigError(
            f"replay={name['replay']}: learns from the loss's signal {_names(unheard)} about each batch, which"
            f" loss={name['loss']} does not give (losses that do: {', '.join(giving)}; or replay=uniform)"
        )
    if loss.needs_joint and not replay.joint:
        raise ConfigError(
            f"loss={name['loss']}: sums the agents' rows of each joint step; replay={name['replay']} samples"
            f" rows one by one (replays that sample joint steps: {replays_with(lambda replay: replay.joint)})"
        )
    missing = replay.needs_extras - chosen.explore.extras
    if missing:
        raise ConfigError(
            f"replay={name['replay']}: needs {_names(missing)} recorded while acting;"
            f" explore={name['explore']} records {_names(chosen.explore.extras) or 'nothing'} (use explore=sample)"
        )


def check_learning_from_data(cfg: dict[str, Any], chosen: Chosen) -> None:
    """A dataset goes with a replay that reads one: a fixed one (``replay=dataset``), which counts the run in
    updates, or one that mixes it into the run's steps (``replay=mixed``)."""
    replay, data, updates = chosen.name["replay"], cfg.get("data"), cfg.get("total_updates")
    offline = f"algorithms that learn from data: algo={', '.join(algos_learning_from_data())}"
    if data and not chosen.replay.needs_data:
        reading = replays_with(lambda cls: cls.needs_data)
        raise ConfigError(
            f"data={data['name']}: replay={replay} learns from the env's steps, not a dataset (replays that read"
            f" one: {reading}; {offline})"
        )
    if chosen.replay.needs_data and not data:
        raise ConfigError(f"replay={replay} learns from a dataset: give one, data=minari data.id=<id>")
    if chosen.replay.fixed and updates is None:
        raise ConfigError(
            f"replay={replay}: a run that learns from data counts updates, not env steps; set total_updates=<N>"
        )
    if updates is not None and not chosen.replay.fixed:
        raise ConfigError(
            f"total_updates={updates}: counts a run that learns only from data (replay=dataset); replay={replay} steps"
            f" the env: drop total_updates, the run counts total_env_steps ({offline})"
        )


def env_options(env_id: str) -> list[str]:
    """The overrides that choose the env ``env_id``: rlfw's presets of it (``conf/env/*.yaml``), then ``env=gym``."""
    line = re.compile(rf"^id: {re.escape(env_id)}\s*(#.*)?$", re.MULTILINE)
    presets = sorted(f"env={p.stem}" for p in Path(config_dir(), "env").glob("*.yaml") if line.search(p.read_text()))
    return [*presets, f"env=gym env.id={env_id}"]


def check_dataset_env(dataset_id: str, env_id: str | None, spec: EnvSpec) -> None:
    """A dataset that names the env its episodes were played in is evaluated in that env."""
    if env_id is not None and env_id != spec.id:
        raise ConfigError(
            f"data.id={dataset_id}: its episodes were played in {env_id}, and this run's env is {spec.id};"
            f" give {' or '.join(env_options(env_id))}"
        )


def check_acting(cfg: dict[str, Any], spec: EnvSpec) -> None:
    """Rows that do not act at every step (``spec.idle`` says why) need a loss that leaves them out; past
    versions take seats only in games measured by their results."""
    name = cfg["loss"]["name"]
    if spec.idle and not lookup("loss", name).reads_acting:
        reading = [n for n, cls in sorted(options("loss").items()) if cls.reads_acting]
        raise ConfigError(
            f"loss={name}: {spec.idle}, and this loss learns from every row; losses that leave out the rows that do"
            f" not act: {', '.join(reading)} (algo=ppo, algo=a2c, algo=mappo)"
        )
    past = cfg["league"]["past"]
    if past > 0 and spec.evaluation != "games":
        raise ConfigError(
            f"league.past={past}: past versions take a seat in a turn-based game's training games (env=connect_four);"
            f" {spec.id} is not one (league.past=0)"
        )
