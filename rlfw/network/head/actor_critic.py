"""Actor-critic head: the policy pi(.|s) for the env's action space, and the state value V(s), on one
shared trunk or two."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import nn

from rlfw.env.packed import STATE
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.encoder import Encoder
from rlfw.network.head import Policy
from rlfw.network.head.contract import NetworkHead
from rlfw.network.head.policy import SPACES, PolicyLayer, policy_layer
from rlfw.network.normalize import shared_norm
from rlfw.registry import register

CRITIC_INPUTS = ("obs", "state")


def orthogonal(module: nn.Module, gain: float) -> None:
    """Orthogonal weights with ``gain``, zero biases, for every linear and conv layer of ``module``."""
    for layer in module.modules():
        if isinstance(layer, (nn.Linear, nn.Conv2d)):
            nn.init.orthogonal_(layer.weight, gain)
            if layer.bias is not None:
                nn.init.zeros_(layer.bias)


@register("head", "actor_critic")
class ActorCritic(NetworkHead):
    """``shared=True``: ``encoder`` feeds both ``actor`` (the policy layer) and ``critic`` (a linear
    value). ``shared=False``: ``actor`` and ``critic`` each have their own encoder (their own trunk).

    Orthogonal initialisation with gains sqrt(2) (trunk), 0.01 (policy), 1 (value), as in SB3 and
    CleanRL's PPO: a near-uniform initial policy. ``log_std_init``: the Gaussian's initial log std
    (Box action spaces). ``critic_input=state``: the observation's ``state`` key (a multi-agent env's
    global state, ``env.state=true``) is read by the critic alone, the actor acting on the agent's own
    (MAPPO's centralized critic, Yu et al. 2022); ``obs``: both read the whole observation.
    """

    outputs = frozenset({"value"})  # whatever the env; an instance adds its policy layer's (logits; mean, log_std)
    action_spaces = frozenset(SPACES)
    has_policy = True
    scores = "logits"  # its Categorical policies'
    policy: PolicyLayer
    actor_trunk: Encoder

    def __init__(
        self,
        spec: EnvSpec,
        make_encoder: Callable[..., Encoder],
        shared: bool = False,
        log_std_init: float = 0.0,
        critic_input: str = "obs",
    ):
        super().__init__()
        require(critic_input in CRITIC_INPUTS, "network.head.critic_input", critic_input, "obs or state")
        if critic_input == "state":
            require(not shared, "network.head.critic_input", critic_input, "needs its own critic trunk: shared=false")
            require(
                STATE in {p.key for p in spec.parts},
                "network.head.critic_input",
                critic_input,
                f"reads a global state, and {spec.id}'s observations have none (env=pettingzoo gives it with env.state=true"
                " for an env with state())",
            )
        self.shared = shared
        # network.normalize_obs: the observations normalized once, here, for both trunks
        actor = make_encoder(skip=(STATE,)) if critic_input == "state" else make_encoder()  # the state: the critic's
        self.norm, trunks = shared_norm([actor, *([] if shared else [make_encoder()])])
        actor_trunk, critic_trunk = trunks[0], trunks[-1]
        orthogonal(actor_trunk, math.sqrt(2))
        if not shared:
            orthogonal(critic_trunk, math.sqrt(2))
        policy = policy_layer(spec, actor_trunk.out_dim, log_std_init, "actor_critic")
        value = nn.Linear(critic_trunk.out_dim, 1)
        self.outputs = ActorCritic.outputs | policy.outputs
        orthogonal(policy, 0.01)
        orthogonal(value, 1.0)
        if shared:
            self.encoder = actor_trunk
            self.actor: nn.Module = policy
            self.critic: nn.Module = value
        else:
            self.actor = nn.Sequential(actor_trunk, policy)
            self.critic = nn.Sequential(critic_trunk, value)
        # the policy layer (the actor, or its last layer) and the actor's trunk by plain attributes:
        # registered once, under actor (or encoder)
        self.__dict__["policy"], self.__dict__["actor_trunk"] = policy, actor_trunk

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        x = obs if self.norm is None else self.norm(obs)
        if self.shared:
            h = self.encoder(x)
            return self.open_to({**self.actor(h), "value": self.critic(h).squeeze(-1)}, obs)
        return self.open_to({**self.actor(x), "value": self.critic(x).squeeze(-1)}, obs)

    def for_acting(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        """What acting reads: the policy's outputs, and V(s) only where it costs one layer (a shared
        trunk). With its own trunk the critic is left out: the rollout asks ``state_value`` for all its steps
        at once, the weights being the same for the whole rollout."""
        if self.shared:
            return self(obs)
        # the actor's two parts, not its Sequential's call: this runs at every env step
        return self.open_to(self.policy(self.actor_trunk(obs if self.norm is None else self.norm(obs))), obs)

    def state_value(self, obs: torch.Tensor) -> torch.Tensor:
        """V(s) alone, ``[B]``."""
        if self.norm is not None:
            obs = self.norm(obs)
        return self.critic(self.encoder(obs) if self.shared else obs).squeeze(-1)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args, **kwargs) -> None:
        """Checkpoints written before the normalizer moved here held it in each trunk, a trunk being
        ``actor.0``, ``critic.0`` or the shared ``encoder`` (``actor.0.norm.mean``, ``actor.0.encoder.*``):
        read under today's names."""
        if self.norm is not None and prefix + "norm.mean" not in state_dict:
            for trunk in (prefix + "actor.0.", prefix + "critic.0.", prefix + "encoder."):
                for key in [k for k in state_dict if k.startswith((trunk + "norm.", trunk + "encoder."))]:
                    rest, value = key[len(trunk) :], state_dict.pop(key)
                    if rest.startswith("norm."):
                        state_dict[prefix + rest] = value  # one normalizer, saved under each trunk
                    else:
                        state_dict[trunk + rest[len("encoder.") :]] = value
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def distribution(self, out: dict[str, torch.Tensor]) -> Policy:
        """pi(.|s): Categorical, independent Categoricals, or a diagonal Gaussian."""
        return self.policy.distribution(out)

    def mode(self, out: dict[str, torch.Tensor]) -> torch.Tensor:
        """The policy's most likely action (the Gaussian's mean)."""
        return self.policy.mode(out)
