"""SAC's update floor: one update of CleanRL's ``sac_continuous_action.py`` written in plain torch, timed.

    python benchmarks/sac_update_floor.py [--obs 17] [--actions 6] [--updates 200] [--blocks 5]

HalfCheetah's sizes by default (17 observations, 6 actions), CleanRL's values: batches of 256, 256x256
ReLU nets, two critics and their targets, the actor and the temperature updated twice every second
update (``policy_frequency=2``), Polyak targets (tau 0.005), Adam, one torch thread. No replay, no
logging, no checks: what a loop with nothing around its update costs per update on this machine, to
read beside the env steps/s of ``benchmarks/mujoco.py --algo sac`` (where both rlfw and SB3 make one
such update per env step). Prints the median block's milliseconds per update.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn


def mlp(inputs: int, outputs: int, hidden: int = 256) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, outputs)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--obs", type=int, default=17)
    parser.add_argument("--actions", type=int, default=6)
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    n, o, a = 256, args.obs, args.actions
    critics, actor = [mlp(o + a, 1), mlp(o + a, 1)], mlp(o, 2 * a)
    targets = [mlp(o + a, 1), mlp(o + a, 1)]
    for target, critic in zip(targets, critics, strict=True):
        target.load_state_dict(critic.state_dict())
    q_opt = torch.optim.Adam([p for c in critics for p in c.parameters()], 1e-3)
    pi_opt = torch.optim.Adam(actor.parameters(), 3e-4)
    log_alpha = torch.zeros(1, requires_grad=True)
    alpha_opt = torch.optim.Adam([log_alpha], 1e-3)
    obs, action, reward = torch.randn(n, o), torch.rand(n, a) * 2 - 1, torch.randn(n)
    next_obs, done = torch.randn(n, o), torch.zeros(n)

    def sample(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:  # CleanRL's: log std squashed into [-5, 2]
        mean, log_std = actor(x).chunk(2, -1)
        log_std = -5 + 3.5 * (torch.tanh(log_std) + 1)
        eps = torch.randn_like(mean)
        squashed = torch.tanh(mean + log_std.exp() * eps)
        logp = (-0.5 * eps.pow(2) - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
        return squashed, logp - torch.log(1 - squashed.pow(2) + 1e-6).sum(-1)

    def q_min(nets: list[nn.Sequential], x: torch.Tensor, act: torch.Tensor) -> torch.Tensor:
        both = torch.cat([x, act], 1)
        return torch.min(nets[0](both), nets[1](both)).view(-1)

    def update(i: int) -> None:
        alpha = log_alpha.exp().item()
        with torch.no_grad():
            next_action, next_logp = sample(next_obs)
            y = reward + 0.99 * (1 - done) * (q_min(targets, next_obs, next_action) - alpha * next_logp)
        both = torch.cat([obs, action], 1)
        q_loss = sum(F.mse_loss(c(both).view(-1), y) for c in critics)
        q_opt.zero_grad()
        q_loss.backward()  # type: ignore[union-attr]
        q_opt.step()
        if i % 2 == 0:
            for _ in range(2):
                pi, logp = sample(obs)
                pi_loss = (alpha * logp - q_min(critics, obs, pi)).mean()
                pi_opt.zero_grad()
                pi_loss.backward()
                pi_opt.step()
                with torch.no_grad():
                    _, logp = sample(obs)
                alpha_loss = (-log_alpha.exp() * (logp - a)).mean()
                alpha_opt.zero_grad()
                alpha_loss.backward()
                alpha_opt.step()
        with torch.no_grad():
            for target, critic in zip(targets, critics, strict=True):
                for t, p in zip(target.parameters(), critic.parameters(), strict=True):
                    t.mul_(0.995).add_(p, alpha=0.005)

    for i in range(50):
        update(i)
    blocks = []
    for _ in range(args.blocks):
        start = time.perf_counter()
        for i in range(args.updates):
            update(i)
        blocks.append((time.perf_counter() - start) / args.updates * 1e3)
    print(
        f"SAC update, CleanRL's, plain torch: {statistics.median(blocks):.2f} ms (median of {args.blocks} blocks of {args.updates})"
    )


if __name__ == "__main__":
    main()
