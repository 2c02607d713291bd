"""Episodes played anew by a run's checkpoint: D4RL's "expert" kind of data from the best checkpoint, its
"medium" kind from one that learned part of the way, played greedily or with the run's training noise."""

from __future__ import annotations

import numpy as np

from rlfw.agent.load import Agent
from rlfw.dataset.episodes import Episode


def played(agent: Agent, episodes: int, greedy: bool, seed: int) -> list[Episode]:
    """``episodes`` whole episodes of ``agent`` in its evaluation env (``agent.make_env``), the first reset
    with ``seed``; ``greedy``: the greedy action, else the training rule's (a sample of the policy, noise,
    epsilon-greedy at its final epsilon)."""
    env = agent.make_env(1)
    env.action_space.seed(seed)
    obs, _ = env.reset(seed=seed)
    found: list[Episode] = []
    while len(found) < episodes:
        act = agent.policy(deterministic=greedy)  # one per episode: a recurrent policy starts afresh
        # copies: the vector env writes each step's observations into the same array
        observations, actions, rewards, terminations, truncations = [obs[0].copy()], [], [], [], []
        done = False
        while not done:
            action = act(obs)
            obs, reward, terminated, truncated, info = env.step(action)
            done = bool(terminated[0] or truncated[0])
            observations.append(
                np.array(info["final_obs"][0] if done else obs[0])
            )  # same-step autoreset: obs starts the next
            actions.append(action[0])
            rewards.append(float(reward[0]))
            terminations.append(bool(terminated[0]))
            truncations.append(bool(truncated[0]))
        found.append(
            Episode(
                observations=np.stack(observations),
                actions=np.stack(actions),
                rewards=np.asarray(rewards),
                terminations=np.asarray(terminations),
                truncations=np.asarray(truncations),
            )
        )
    env.close()
    return found
