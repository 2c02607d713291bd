"""Observation normalization kept in the network: the same statistics as gymnasium's
NormalizeObservation on the same observations, one normalizer for all encoders, frozen unless the
collector updates it, and carried by state_dict; reward scaling as gymnasium's NormalizeReward."""

import gymnasium as gym
import numpy as np
import pytest
import torch

from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.network import build_network
from rlfw.network.normalize import ObsNorm, normalizers
from rlfw.replay.reward_scale import RewardScale

SPEC = EnvSpec("Pendulum-v1", (3,), gym.spaces.Box(-2, 2, (1,)), None)
NETWORK = {
    "encoder": {"name": "mlp", "hidden": [8]},
    "head": {"name": "actor_critic"},
    "normalize_obs": True,
    "obs_clip": 10.0,
}


class Feed(gym.vector.VectorEnv):
    """A vector env of 3 sub-envs whose steps return the given observations, rewards and terminations."""

    def __init__(self, steps: list[tuple[np.ndarray, np.ndarray, np.ndarray]], mode=gym.vector.AutoresetMode.SAME_STEP):
        self.num_envs, self.steps, self.metadata = 3, iter(steps), {"autoreset_mode": mode}
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (3,))
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (3, 3))
        self.action_space = gym.spaces.Box(-1, 1, (3, 1))

    def step(self, actions):
        obs, reward, terminated = next(self.steps)
        return obs, reward, terminated, np.zeros(3, bool), {}


def test_the_statistics_are_gymnasiums_and_one_normalizer_serves_every_encoder():
    net = build_network(NETWORK, SPEC)
    (norm,) = normalizers(net)  # actor and critic trunks share it
    rng = np.random.default_rng(0)
    batches = [rng.normal(5, 3, (3, 3)) for _ in range(20)]
    for obs in batches:
        norm.update(obs)
    wrapper = gym.wrappers.vector.NormalizeObservation(
        Feed(
            [(b, np.zeros(3), np.zeros(3, bool)) for b in batches], gym.vector.AutoresetMode.NEXT_STEP
        )  # it takes no other
    )
    normalized = [wrapper.step(None)[0] for _ in batches]
    np.testing.assert_allclose(norm.mean.numpy(), wrapper.obs_rms.mean)
    np.testing.assert_allclose(norm.var.numpy(), wrapper.obs_rms.var)
    np.testing.assert_allclose(norm(torch.from_numpy(batches[-1])).numpy(), normalized[-1], rtol=1e-5, atol=1e-5)


def test_forward_passes_never_change_the_statistics_and_the_state_dict_carries_them():
    net = build_network(NETWORK, SPEC)
    (norm,) = normalizers(net)
    norm.update(np.full((2, 3), 4.0))
    before = {k: v.clone() for k, v in net.state_dict().items()}
    net(torch.randn(7, 3))
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())
    copy = build_network(NETWORK, SPEC)
    copy.load_state_dict(net.state_dict())
    obs = torch.randn(5, 3)
    assert torch.equal(copy(obs)["mean"], net(obs)["mean"])


def test_updates_reach_the_buffers_after_a_copy_a_move_or_a_load_that_replaces_them():
    import copy

    def updated(norm: ObsNorm) -> ObsNorm:
        norm.update(np.full((1, 3), 7.0))  # after an update its numpy views of the buffers are kept
        return norm

    norm = updated(ObsNorm((3,), 10.0))
    twin = updated(copy.deepcopy(norm))  # its own buffers, not the original's views
    assert twin.mean[0] > norm.mean[0] and twin.count == norm.count + 1
    moved = updated(norm.to(torch.float32))  # new buffer tensors
    assert moved.mean.dtype == torch.float32 and float(moved.count) == pytest.approx(2, abs=1e-3)
    fresh, before = ObsNorm((3,), 10.0), float(twin.count)
    updated(fresh)  # views of the buffers it is about to lose
    fresh.load_state_dict({k: v.clone() for k, v in twin.state_dict().items()}, assign=True)
    assert float(updated(fresh).count) == before + 1 and torch.equal(fresh.shift, fresh.mean.float())


@pytest.mark.parametrize("shared", [False, True])
def test_an_actor_critic_normalizes_once_per_forward_and_reads_checkpoints_from_before(shared):
    net = build_network({**NETWORK, "head": {"name": "actor_critic", "shared": shared}}, SPEC)
    (norm,) = normalizers(net)
    norm.update(np.random.default_rng(0).normal(5, 3, (4, 3)))
    calls = []
    norm.register_forward_hook(lambda *_: calls.append(1))
    obs = torch.randn(5, 3)
    out = net(obs)
    assert len(calls) == 1  # actor and critic read one normalized batch
    # the layout before the normalizer moved into the head: one copy under each trunk, the encoder inside
    trunks = ["encoder."] if shared else ["actor.0.", "critic.0."]
    old = {}
    for key, value in net.state_dict().items():
        if key.startswith("norm."):
            old.update({trunk + key: value for trunk in trunks})
        else:
            trunk = next((t for t in trunks if key.startswith(t)), None)
            old[trunk + "encoder." + key[len(trunk) :] if trunk else key] = value
    copy = build_network({**NETWORK, "head": {"name": "actor_critic", "shared": shared}}, SPEC)
    copy.load_state_dict(old)  # strict: every key placed
    assert all(torch.equal(copy(obs)[k], v) for k, v in out.items())


def test_clipped_to_obs_clip():
    norm = ObsNorm((1,), clip=2.0)
    norm.update(np.array([[0.0], [1.0]]))
    assert norm(torch.tensor([[100.0], [-100.0]])).tolist() == [[2.0], [-2.0]]


def test_pixels_are_not_normalized():
    pixels = EnvSpec("Catch", (2, 10, 5), gym.spaces.Discrete(3), None, np.dtype(np.uint8))
    network = {
        **NETWORK,
        "encoder": {"name": "nature_cnn", "channels": [4], "kernels": [3], "strides": [1], "hidden": 8},
    }
    with pytest.raises(ConfigError, match=r"network.normalize_obs=True: Catch gives uint8 pixels"):
        build_network(network, pixels)


def test_reward_scale_is_gymnasiums_normalize_reward_then_clipped():
    rng = np.random.default_rng(1)
    rewards = [rng.normal(0, 50, 3) for _ in range(30)]
    ends = [rng.random(3) < 0.1 for _ in range(30)]
    scale = RewardScale(3, gamma=0.9, clip=10.0)
    ours = [scale(r, e, np.zeros(3, bool)) for r, e in zip(rewards, ends, strict=True)]
    wrapper = gym.wrappers.vector.NormalizeReward(
        Feed([(np.zeros((3, 3)), r, e) for r, e in zip(rewards, ends, strict=True)]), gamma=0.9
    )
    theirs = [np.clip(wrapper.step(None)[1], -10, 10) for _ in rewards]
    np.testing.assert_allclose(np.stack(ours), np.stack(theirs), rtol=1e-6)
    restored = RewardScale(3, gamma=0.9, clip=10.0)
    restored.load_state_dict(scale.state_dict())
    np.testing.assert_allclose(restored(rewards[0], ends[0], ends[0]), scale(rewards[0], ends[0], ends[0]))


def test_a_normalizer_is_made_on_the_meta_device_and_starts_as_its_statistics_say():
    with torch.device("meta"):  # how rlfw.config.build sizes a network before building it
        ObsNorm((3,), clip=5.0)
    norm, fresh = ObsNorm((3,), clip=5.0), ObsNorm((3,), clip=5.0)
    norm.refresh()  # derived from mean 0 and var 1
    assert torch.equal(norm.shift, fresh.shift) and torch.equal(norm.inv_std, fresh.inv_std)
