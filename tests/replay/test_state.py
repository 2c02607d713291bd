"""A replay's state_dict, through torch.save and a weights_only load, samples exactly as the original."""

from __future__ import annotations

import io

import pytest
import torch

from rlfw.registry import build
from tests.helpers import spec
from tests.replay.test_frames import pixel_spec


def through_a_file(state: dict) -> dict:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


def steps(env_spec, num_envs: int, count: int):
    g = torch.Generator().manual_seed(0)
    obs = torch.randint(0, 255, (num_envs, *env_spec.obs_shape), generator=g).to(
        torch.float32 if env_spec.obs_dtype.kind == "f" else torch.uint8
    )
    for _ in range(count):
        nxt = torch.randint(0, 255, obs.shape, generator=g).to(obs.dtype)
        done = torch.rand(num_envs, generator=g) < 0.1
        yield {
            k: v.numpy()
            for k, v in {  # as the collector hands them over: numpy arrays
                "obs": obs,
                "action": torch.randint(2, (num_envs,), generator=g),
                "reward": torch.rand(num_envs, generator=g),
                "next_obs": nxt,
                "terminated": done & (torch.rand(num_envs, generator=g) < 0.5),
                "truncated": done & False,
                "logp": torch.zeros(num_envs),
                "value": torch.rand(num_envs, generator=g),
            }.items()
        }
        obs = nxt


@pytest.mark.parametrize(
    "cfg, env_spec",
    [
        ({"name": "uniform", "capacity": 300, "learning_starts": 64}, spec()),
        ({"name": "prioritized", "capacity": 300, "learning_starts": 64, "n_step": 3}, spec()),
        ({"name": "uniform", "capacity": 300, "learning_starts": 64, "n_step": 3}, "pixels"),
    ],
    ids=["uniform", "prioritized-nstep", "frames-nstep"],
)
def test_a_restored_replay_samples_what_the_original_samples(cfg, env_spec):
    env_spec = pixel_spec(4, "zeros") if env_spec == "pixels" else env_spec
    run = {"spec": env_spec, "num_envs": 2, "gamma": 0.9, "total_env_steps": 10_000}
    original = build("replay", cfg, "replay", **run)
    for step in steps(env_spec, 2, 400):  # past capacity: the ring has wrapped
        original.add({k: v for k, v in step.items() if k not in ("logp", "value")})
    copy = build("replay", cfg, "replay", **run)
    copy.load_state_dict(through_a_file(original.state_dict()))
    for _ in range(5):
        torch.manual_seed(1)
        a = original.sample()
        torch.manual_seed(1)
        b = copy.sample()
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        out = {"td_error": torch.randn(len(a.action))}
        for batch in (a, b):
            batch.signal("td_error", out["td_error"])
        original.feedback(a)
        copy.feedback(b)
