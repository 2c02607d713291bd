"""``rlfw.load``: a trained agent from a run folder or a checkpoint, to act with in Python.

The checkpoint holds the config that ran, so the agent rebuilds its env and network through the
registry (a plugin's head too, once the plugin is installed) and loads the weights with
``weights_only=True``. Whatever the policy needs beyond the env's own wrappers (pixel scaling, and
any statistics kept as the network's buffers) is part of the network, so it travels with the agent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from rlfw.env.masks import OBSERVATION, mask_size
from rlfw.env.packed import KEY, pack
from rlfw.env.spec import EnvSpec, env_action
from rlfw.errors import ConfigError
from rlfw.explore.act import act
from rlfw.explore.greedy import GREEDY
from rlfw.network import build_network
from rlfw.network.driver import Driver, driver
from rlfw.registry import build, chosen, names
from rlfw.run.evaluate import Policy, eval_seed
from rlfw.state.names import checkpoint_file
from rlfw.state.resume import read_checkpoint


@dataclass
class Agent:
    """A trained network with the env it was trained on. ``config`` is the config that ran,
    ``spec`` the env's spec, ``checkpoint`` the file it came from, ``evals`` the run's greedy
    evaluations up to that checkpoint (the last one evaluated these weights when ``env_steps`` is
    its env steps)."""

    config: dict[str, Any]
    spec: EnvSpec
    net: nn.Module
    env: Any  # the env option: make(num_envs, evaluation) and render_env(render_mode)
    explore: Any  # the rule the run acted with while training: predict(deterministic=False)
    device: torch.device
    checkpoint: Path
    env_steps: int
    evals: list[dict[str, float]] = field(default_factory=list)

    def predict(
        self,
        obs: np.ndarray | torch.Tensor | dict[str, Any],
        state: np.ndarray | None = None,
        episode_start: np.ndarray | None = None,
        deterministic: bool = True,
        action_mask: np.ndarray | torch.Tensor | None = None,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Actions for one observation or a batch (numpy or torch in, numpy out), as the env takes them
        (clipped to a Box's bounds). ``deterministic``: the greedy action (argmax Q, the policy's mode);
        else the training rule's (epsilon-greedy at its final epsilon, or a sample of the policy).

        A recurrent policy also takes and returns its ``state`` (``[S, hidden]`` per observation; None:
        an episode's first step) and ``episode_start`` (true where an episode begins: its state is
        zeroed; None: nowhere), as SB3-contrib's ``RecurrentPPO.predict``. A feed-forward one returns
        ``None`` as its state.

        The observations ``make_env``'s envs give carry their open actions already. An observation as the
        env itself gives it is joined to them as the run joined it (``rlfw.env.packed``): a Dict (one, or a
        batch per key; its ``action_mask`` key the open actions, as a PettingZoo game's ``env.last()``
        gives it), or any other observation with ``action_mask`` (bools, one per action: the env's
        ``info["action_mask"]`` or ``action_masks()``). The action is one of the open ones."""
        if isinstance(obs, dict) or action_mask is not None:
            obs = self._joined(obs, action_mask)
        batch, single = self._batch(obs)
        driving = self._driver(batch, single, state, episode_start)
        with torch.inference_mode():
            rule = GREEDY if deterministic else self.explore
            num_actions = self.spec.num_actions if self.spec.discrete else None
            action, _ = act(driving, rule, batch, self.config["total_env_steps"], num_actions=num_actions)
        action, after = env_action(self.spec.action_space)(action), driving.state  # after: None, feed-forward
        if single:
            return action[0], None if after is None else after[0]
        return action, after

    def _driver(self, batch: torch.Tensor, single: bool, state: Any, episode_start: Any) -> Driver:
        """What acts for the network on ``batch``, carrying the caller's ``state`` (a recurrent policy's)."""
        driving = driver(self.net, len(batch), self.device)
        if state is not None and single:
            state = np.asarray(state)[None]
        try:
            driving.start(state, self._starts(episode_start, state is None, len(batch)))
        except ValueError as why:
            raise ValueError(f"predict: {why}") from None
        return driving

    def _starts(self, episode_start: np.ndarray | None, first: bool, rows: int) -> torch.Tensor:
        if episode_start is None:
            return torch.full((rows,), first, device=self.device)
        return torch.as_tensor(np.asarray(episode_start, dtype=bool), device=self.device).reshape(rows)

    def policy(self, deterministic: bool = True) -> Policy:
        """``predict`` as a function of a batch of observations; a recurrent policy's state is carried
        from call to call (one ``policy()`` per set of episodes, one episode per env, as ``evaluate`` plays)."""
        state = None

        def step(obs: np.ndarray) -> np.ndarray:
            nonlocal state
            action, state = self.predict(obs, state, deterministic=deterministic)
            return action

        return step

    def make_env(self, num_envs: int = 1, render_mode: str | None = None) -> gym.vector.VectorEnv:
        """A vector env made as training made its evaluation envs (for Atari: the same preprocessing,
        full games, raw scores); not yet reset. ``render_mode`` (``human``, ``rgb_array``) makes each
        sub-env render."""
        if render_mode is None:
            return self.env.make(num_envs, evaluation=True)
        return gym.vector.SyncVectorEnv(
            [lambda: self.env.render_env(render_mode)[0]] * num_envs, autoreset_mode=gym.vector.AutoresetMode.SAME_STEP
        )

    def eval_seed(self) -> int:
        """The seed of the run's evaluation of these weights (of the next one, if they moved on since)."""
        done = len(self.evals)
        evaluated = done and self.evals[-1]["env_steps"] == self.env_steps
        return eval_seed(self.config["seed"], done - 1 if evaluated else done)

    def _joined(self, obs: Any, action_mask: Any) -> np.ndarray:
        """An observation as the env gives it (a Dict, or an array and ``action_mask``), packed into this
        agent's observation (its parts in order, the open actions among them); one line for what does not fit."""
        keyed = dict(obs) if isinstance(obs, dict) else {OBSERVATION: obs}
        if action_mask is not None:
            keyed[KEY] = action_mask
        if self.spec.mask is None and KEY in keyed:
            raise ValueError(
                f"predict: an action_mask, and this agent was trained without masks"
                f"{'' if mask_size(self.spec.action_space) else f' (it acts in {self.spec.action_space})'}"
            )
        if not self.spec.parts:
            raise ValueError(f"predict: a dict of observations; this agent reads arrays of shape {self.spec.obs_shape}")
        missing = [p.key for p in self.spec.parts if p.key not in keyed]
        if missing:
            raise ValueError(f"predict: the observation lacks {', '.join(missing)}; it has {', '.join(keyed)}")
        try:
            packed = pack({p.key: keyed[p.key] for p in self.spec.parts}, self.spec.parts, self.spec.obs_dtype)
        except ValueError as err:
            parts = ", ".join(f"{p.key} {p.shape or (p.size,)}" for p in self.spec.parts)
            raise ValueError(f"predict: the observation does not fit this agent's parts ({parts}): {err}") from None
        mask = self.spec.mask
        if mask is not None and not self.spec.idle:  # a seat off its turn has none open: its action goes nowhere
            if not (packed[..., mask.start : mask.start + mask.size] > 0).any(-1).all():
                raise ValueError("predict: an action_mask row with no action open")
        return packed

    def _batch(self, obs: np.ndarray | torch.Tensor) -> tuple[torch.Tensor, bool]:
        """``obs`` as a batch on the agent's device, and whether it was one observation."""
        tensor = obs if isinstance(obs, torch.Tensor) else torch.from_numpy(np.asarray(obs))
        shape, want = tuple(tensor.shape), self.spec.obs_shape
        if shape != want and shape[1:] != want:
            raise ValueError(
                f"predict: observations of shape {shape} do not fit this agent's {want} (one observation) or"
                f" (N, {', '.join(map(str, want))}) (a batch)"
            )
        dtype = torch.from_numpy(np.zeros(0, self.spec.obs_dtype)).dtype
        if dtype == torch.uint8 and tensor.dtype != torch.uint8:  # scaled or float images would be read wrong
            raise ValueError(f"predict: observations of dtype {tensor.dtype}; this agent reads uint8 pixels (0-255)")
        if tensor.dtype == torch.bool or tensor.dtype.is_complex:
            raise ValueError(f"predict: observations of dtype {tensor.dtype}; this agent reads real numbers ({dtype})")
        tensor = tensor.to(self.device, dtype)
        return (tensor[None], True) if shape == want else (tensor, False)


def load(path: str | Path, which: str = "best", device: str | torch.device = "cpu") -> Agent:
    """The agent in ``path``: a run folder (its best checkpoint, or ``which="last"``) or a ``.ckpt``
    file, with its network on ``device``."""
    file = checkpoint_file(path, which)
    state = read_checkpoint(file, "load")
    cfg = state["config"]
    for key, (kind, name) in chosen(cfg).items():
        if name not in names(kind):
            plugin = state.get("options_from", {}).get(key)
            where = f" from the plugin {plugin}, which is not installed here" if plugin else ", not registered here"
            raise ConfigError(f"{file} was trained with {key}={name}{where}; valid: {', '.join(names(kind))}")
    env = build("env", cfg["env"], "env")
    net = build_network(cfg["network"], env.spec)
    net.load_state_dict({k.removeprefix("net."): v for k, v in state["state_dict"].items() if k.startswith("net.")})
    device = torch.device(device)
    net.to(device).eval().requires_grad_(False)
    explore = build("explore", cfg["explore"], "explore", spec=env.spec)
    run = state["run"]
    return Agent(cfg, env.spec, net, env, explore, device, file, run["env_steps"], list(run["evals"]))
