"""Contract checks for plugin authors: one call per component, from your own pytest suite, and
``run`` for a real training run, composed and checked as the command line does it.

    from rlfw.testing import check_loss

    def test_my_loss_keeps_rlfws_contract():
        check_loss("my_loss", scale=0.5)

Each check builds the option through the registry (so its config keys are checked too) on a small
synthetic env with discrete actions, and fails with an ``AssertionError`` that says what broke.
rlfw runs the same checks over every built-in option (tests/test_contracts.py).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from rlfw.batch import Batch
from rlfw.config.fit import contracts
from rlfw.dataset.read import Transitions
from rlfw.env.spec import EnvSpec
from rlfw.explore.act import act
from rlfw.network import build_network
from rlfw.network.driver import Stepping, driver
from rlfw.registry import build, lookup, options

SPEC = EnvSpec("Contract-v0", (4,), gym.spaces.Discrete(3), None)
BOX = EnvSpec("ContractBox-v0", (4,), gym.spaces.Box(-2.0, 2.0, (2,)), None)  # for options that act in Box spaces only
N = 8  # batch size, and sub-envs acting at once


def spec_for(cls: Any) -> EnvSpec:
    """The synthetic env an option is checked on: discrete, unless it acts in Box spaces only."""
    return SPEC if "Discrete" in cls.action_spaces else BOX


def head_for(needs: frozenset[str], distribution: bool = False, critic: bool = False) -> str:
    """The first registered head that gives the outputs ``needs`` and, if asked, a policy (an action
    distribution) and critics Q(s, a): what an explore rule or a loss declares it needs; not one that is
    trained through outputs beyond ``needs`` (C51's return distribution)."""
    for name, cls in sorted(options("head").items()):
        if (
            needs <= cls.outputs
            and cls.trained_through <= needs
            and (not distribution or cls.has_policy)
            and (not critic or cls.has_critics)
        ):
            return name
    raise AssertionError(f"no registered head gives the outputs {sorted(needs)} (and the policy or critics) it needs")


def network(needs: frozenset[str] | set[str], head: dict | None = None, spec: EnvSpec | None = None) -> Any:
    """A small network: ``head`` if given, else the first registered head whose outputs cover ``needs``."""
    if head is None:
        head = {"name": head_for(frozenset(needs))}
    spec = spec or spec_for(lookup("head", head["name"]))
    return build_network({"encoder": {"name": "mlp", "hidden": [16]}, "head": head}, spec)


def field(name: str, n: int = N, spec: EnvSpec = SPEC) -> torch.Tensor:
    """A plausible value of a batch or step field, for ``n`` samples of ``spec``'s env."""
    space = spec.action_space
    low, high = (
        (torch.as_tensor(space.low), torch.as_tensor(space.high)) if isinstance(space, gym.spaces.Box) else (0, 0)
    )
    makers = {
        "obs": lambda: torch.randn(n, *spec.obs_shape),
        "next_obs": lambda: torch.randn(n, *spec.obs_shape),
        "action": lambda: (
            torch.randint(spec.num_actions, (n,))
            if spec.discrete
            else low + torch.rand(n, *(space.shape or ())) * (high - low)
        ),
        "reward": lambda: torch.randn(n),
        "terminated": lambda: torch.rand(n) < 0.2,
        "truncated": lambda: torch.rand(n) < 0.1,
        "discount": lambda: torch.full((n,), 0.99),
        "logp": lambda: -torch.rand(n),
        "value": lambda: torch.randn(n),
        "advantage": lambda: torch.randn(n),
        "returns": lambda: torch.randn(n),
        "weight": lambda: torch.rand(n),
        "index": lambda: torch.arange(n),
    }
    assert name in makers, f"rlfw.testing cannot make a {name!r} field; pass your own batch"
    return makers[name]()


def check_head(name: str, **values) -> dict[str, torch.Tensor]:
    """Its outputs are exactly the ones it declares (``q`` [B, actions], ``value`` [B], ...);
    its ``mode`` picks a valid action per row, which is what greedy evaluation, ``rlfw.load`` and
    export act with; what it declares it has (``rlfw.network.head.contract``) is there: a
    ``distribution`` that samples valid actions with finite log-probs, critics ``q_sa``, the action
    ``scores`` among its outputs, where closed actions stay closed."""
    cls = lookup("head", name)
    spec = spec_for(cls)
    net = network(cls.outputs, {"name": name, **values}, spec)
    if net.recurrent:
        check_memory(name, net, spec)
    out = (Stepping(net, N) if net.recurrent else net)(field("obs", spec=spec))
    mode = net.mode(out)
    assert_actions(f"head={name}: mode", mode.detach().numpy(), spec)
    if cls.has_policy:
        pi = net.distribution(out)
        sampled = pi.sample()
        assert_actions(f"head={name}: distribution(outputs).sample()", sampled.numpy(), spec)
        logp = pi.log_prob(sampled)
        assert logp.shape == (N,), f"head={name}: log_prob must be one value per row (summed over action dims)"
        assert bool(torch.isfinite(logp).all()), f"head={name}: log_prob of a sampled action is not finite"
    if cls.has_critics:
        q = net.q_sa(field("obs", spec=spec), field("action", spec=spec))
        assert q.ndim == 2 and q.shape[1] == N, (
            f"head={name}: q_sa(obs, action) must be [n critics, B], not {tuple(q.shape)}"
        )
    declared = net.outputs  # the class's, or the instance's when they depend on the env (a policy layer's)
    assert set(out) == set(declared), f"head={name} declares outputs {sorted(declared)} but returns {sorted(out)}"
    assert cls.scores is None or cls.scores in out, (
        f"head={name} declares scores = {cls.scores!r}: its action scores must be one of its outputs, {sorted(out)}"
    )
    shapes = {"q": (N, SPEC.num_actions), "logits": (N, SPEC.num_actions), "value": (N,)}
    for key, tensor in out.items():
        expected = shapes.get(key, (N, *tensor.shape[1:]))
        assert tuple(tensor.shape) == expected, (
            f"head={name}: output {key} has shape {tuple(tensor.shape)}, expected {expected}"
        )
    return out


def check_memory(name: str, net: Any, spec: EnvSpec, steps: int = 6) -> None:
    """A recurrent head's state: ``initial_state(n)`` has a row per env; a step returns the next state
    of the same shape; unrolling ``steps`` steps of env columns from stored states (the learner's view,
    with episodes starting at the first step of some columns and mid-way in others, twice in a row in
    one) gives what stepping through them one at a time gave (the collector's view)."""
    state = net.initial_state(N)
    assert state.shape[0] == N, f"head={name}: initial_state({N}) must have {N} rows, not {tuple(state.shape)}"
    stored = torch.randn_like(state)  # the columns' states from before, as a rollout keeps them
    obs = torch.randn(steps, N, *spec.obs_shape)
    starts = torch.zeros(steps, N, dtype=torch.bool)
    starts[0, : N // 2] = True
    starts[2, 0] = starts[3, 0] = starts[3, 1] = starts[steps - 1, 2] = True
    stepped, after = [], stored
    with torch.no_grad():
        for t in range(steps):
            out = net(obs[t], after, starts[t])
            after = out.pop("state")
            assert after.shape == state.shape, f"head={name}: a step's state has shape {tuple(after.shape)}"
            stepped.append(out)
        unrolled = net.unroll(obs.flatten(0, 1), stored, starts)
    assert set(unrolled) == set(stepped[0]), (
        f"head={name}: unroll gives {sorted(unrolled)}, a step {sorted(stepped[0])}"
    )
    for key in stepped[0]:
        torch.testing.assert_close(
            unrolled[key],
            torch.cat([out[key] for out in stepped]),
            msg=f"head={name}: unroll's {key} differs from steps'",
        )


def check_explore(name: str, **values) -> None:
    """Valid actions for every sub-env, early and late in a run, and exactly the extras it declares."""
    spec = spec_for(declared("explore", name))
    explore = build("explore", {"name": name, **values}, "explore", spec=spec)
    with torch.inference_mode():
        net, obs = (
            network(explore.needs, {"name": head_for(explore.needs, explore.needs_distribution)}, spec),
            field("obs", spec=spec),
        )
        for env_step in (0, 10**7):
            driving = driver(net, N)  # acting goes through the network's driver, as the collector's does
            action, extras = act(
                driving, explore, obs, env_step, num_actions=spec.num_actions if spec.discrete else None
            )
            assert_actions(f"explore={name}: actions", action, spec)
            assert set(extras) == set(explore.extras), (
                f"explore={name} declares extras {sorted(explore.extras)}, returns {sorted(extras)}"
            )
            assert all(isinstance(v, np.ndarray) and v.shape[0] == N for v in extras.values()), (
                f"explore={name}: each extra must be a numpy array with one value per sub-env (the replay stores them)"
            )


def assert_actions(what: str, action: np.ndarray, spec: EnvSpec) -> None:
    """``action`` is a numpy batch of valid actions for ``spec``'s env: integers in range, or floats
    within a Box's bounds."""
    assert isinstance(action, np.ndarray) and len(action) == N, f"{what} must be a numpy array of {N} actions"
    space = spec.action_space
    if isinstance(space, gym.spaces.Box):
        shape = tuple(space.shape)
        assert action.shape == (N, *shape) and action.dtype.kind == "f", f"{what}: [B, {shape[0]}] floats"
        assert bool(((action >= space.low) & (action <= space.high)).all()), f"{what}: an action is out of bounds"
    else:
        assert action.shape == (N,) and action.dtype.kind in "iu", f"{what}: [B] integers (the envs take them)"
        assert bool(((action >= 0) & (action < spec.num_actions)).all()), f"{what}: an action is out of range"


def declared(kind: str, name: str) -> Any:
    """The registered class of ``kind`` ``name``, which subclasses its kind's contract (``rlfw.loss.contract``
    and its siblings): the fit checks read what it needs from there."""
    cls = lookup(kind, name)
    base = contracts()[kind]
    assert issubclass(cls, base), (
        f"{kind}={name}: {cls.__qualname__} must subclass {base.__module__}.{base.__qualname__}"
    )
    return cls


def check_loss(name: str, batch: Batch | None = None, **values) -> dict[str, torch.Tensor]:
    """Scalar, finite ``loss_*`` terms whose gradient reaches the network (never the target), metrics
    without gradient, and no batch field read beyond ``needs_batch``."""
    cls = declared("loss", name)
    head = head_for(cls.needs, cls.needs_distribution, cls.needs_critic)
    spec = spec_for(lookup("head", head))
    if cls.needs_joint:  # a loss over the agents of joint steps: two agents, the batch's rows in pairs
        spec = dataclasses.replace(spec, agents=("agent_0", "agent_1"))
    loss = build("loss", {"name": name, **values}, "loss", spec=spec)
    net = network(loss.needs, {"name": head}, spec)
    target = copy.deepcopy(net).requires_grad_(False) if loss.needs_target else None
    batch = batch or Batch({f: field(f, spec=spec) for f in loss.needs_batch})
    try:
        out = loss(batch, net, target)
    except AttributeError as err:
        raise AssertionError(f"loss={name} reads a batch field it does not declare in needs_batch: {err}") from err
    terms = {k: v for k, v in out.items() if k.startswith("loss_")}
    assert terms, f"loss={name} returns no loss_* term"
    for key, value in out.items():
        if key in terms:
            assert value.ndim == 0 and torch.isfinite(value), f"loss={name}: {key} must be a finite scalar"
            assert value.requires_grad, f"loss={name}: {key} has no gradient path"
        else:
            assert not value.requires_grad, f"loss={name}: the metric {key} carries a gradient; detach it"
        assert value.ndim == 0, f"loss={name}: the term {key} is not a scalar (a per-sample value is a signal)"
    undeclared = set(batch.signals) - loss.signals
    assert not undeclared, f"loss={name} signals {sorted(undeclared)}, which it does not declare in signals"
    sum(terms.values()).backward()
    assert any(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in net.parameters()), (
        f"loss={name}: no gradient reaches the network"
    )
    assert target is None or all(p.grad is None for p in target.parameters()), (
        f"loss={name}: gradient reached the target"
    )
    return out


def check_replay(name: str, max_steps: int = 10_000, **values) -> Batch:
    """Ready within ``max_steps`` vector steps of 2 envs (a fixed one, on a dataset of ``max_steps``
    transitions: at once; one that needs a dataset gets that one); its batches hold exactly the fields it
    declares."""
    cls = declared("replay", name)
    fixed = cls.fixed
    run = {"spec": SPEC, "num_envs": 2, "gamma": 0.99, "total_env_steps": 1_000_000, "data": None}
    fields = ["obs", "action", "reward", "next_obs", "terminated", "truncated"]
    if cls.needs_data:
        obs, action, reward, next_obs, terminated, truncated = (field(f, max_steps).numpy() for f in fields)
        run["data"] = Transitions(obs, action, reward, next_obs, terminated, truncated, None, None)
    replay = build("replay", {"name": name, **values}, "replay", **run)
    fields += sorted(replay.needs_extras)
    for _ in range(0 if fixed else max_steps):
        replay.add({f: field(f, 2).numpy() for f in fields})  # what the collector hands over: numpy arrays
        if replay.ready():
            break
    assert replay.ready(), f"replay={name} is not ready after {max_steps} vector steps"
    batch = next(iter(replay.batches(network({"value"} if "value" in replay.provides else {"q"}))))
    assert set(batch) == set(replay.provides), (
        f"replay={name} declares {sorted(replay.provides)}, yields {sorted(batch)}"
    )
    assert len({len(v) for v in batch.values()}) == 1, f"replay={name}: fields of one batch differ in length"
    batch.signal("td_error", torch.zeros(len(batch.action)))  # what a TD loss tells prioritized replay
    replay.feedback(batch)
    return batch


def check_target(name: str, **values) -> None:
    """After its updates the target network stays out of the autograd graph."""
    declared("target", name)
    rule = build("target", {"name": name, **values}, "target")
    net = network({"q"})
    target = copy.deepcopy(net).requires_grad_(False) if rule.uses_target else None
    for update in range(1, 4):
        with torch.no_grad():
            for p in net.parameters():
                p.add_(0.1)
        rule.step(net, target, update)
    if target is not None:
        assert not any(p.requires_grad for p in target.parameters()), (
            f"target={name}: the target's parameters require grad"
        )
        assert target(field("obs"))["q"].grad_fn is None, (
            f"target={name}: the target's outputs are in the autograd graph"
        )


def run(run_dir: Path, *overrides: str) -> dict:
    """``python -m rlfw <overrides> hydra.run.dir=<run_dir>``, in this process (``rlfw.train``: the same
    composition, checks and run, without a new interpreter's seconds of imports); returns summary.json."""
    from rlfw.run.api import train  # imports Lightning

    train(overrides, run_dir)
    return json.loads((Path(run_dir) / "summary.json").read_text())
