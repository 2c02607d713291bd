"""Dict observations: packed into one array by the env, read back key by key by the multi encoder."""

import gymnasium as gym
import numpy as np
import pytest
import torch

import rlfw
from rlfw.env.gym import GymEnv
from rlfw.env.packed import layout, pack
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.network import build_network
from rlfw.network.encoder.multi import Multi
from tests.helpers import run

IMAGE = gym.spaces.Box(0, 255, (7, 7, 3), np.uint8)


class DictEnv(gym.Env):
    """A 7x7x3 uint8 image, a Discrete(4) direction, a float vector and a text mission: MiniGrid's keys
    and one more. Reward 1 for the action equal to the direction modulo 3; 20 steps an episode."""

    def __init__(self, vector: bool = True, names: dict[str, str] | None = None):
        self.names = {k: k for k in ("image", "direction", "speed", "mission")} | (names or {})
        spaces = {"image": IMAGE, "direction": gym.spaces.Discrete(4)}
        if vector:
            spaces["speed"] = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
        spaces["mission"] = gym.spaces.Text(20)
        self.observation_space = gym.spaces.Dict({self.names[k]: v for k, v in spaces.items()})
        self.action_space = gym.spaces.Discrete(3)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        reward = float(action == self.direction % 3)
        self.t += 1
        return self._obs(), reward, False, self.t >= 20, {}

    def _obs(self):
        self.direction = int(self.np_random.integers(4))
        obs = {"image": self.np_random.integers(0, 11, (7, 7, 3), dtype=np.uint8), "direction": self.direction}
        if self.names["speed"] in self.observation_space.spaces:
            obs["speed"] = self.np_random.uniform(-1, 1, 2).astype(np.float32)
        return {self.names[k]: v for k, v in {**obs, "mission": "go"}.items()}


# keys named like a torch container's methods, with dots and dashes: a user may name them anything
ODD = {"image": "type", "direction": "values", "speed": "items.a-b", "mission": "forward"}
gym.register("RlfwTest/Dict-v0", entry_point=DictEnv)
gym.register("RlfwTest/DictBytes-v0", entry_point=DictEnv, kwargs={"vector": False})
gym.register("RlfwTest/OddKeys-v0", entry_point=DictEnv, kwargs={"names": ODD})


def test_each_key_has_its_place_and_text_is_left_out():
    parts, left_out = layout(DictEnv().observation_space)  # in the space's order: gymnasium sorts a dict's keys
    assert [(p.key, p.kind, p.start, p.size) for p in parts] == [
        ("direction", "discrete", 0, 1),
        ("image", "image", 1, 147),
        ("speed", "vector", 148, 2),
    ]
    assert left_out == ["mission (Text)"]


def test_a_dict_of_bytes_packs_into_uint8_and_one_with_floats_into_float32():
    bytes_env, mixed = GymEnv("RlfwTest/DictBytes-v0"), GymEnv("RlfwTest/Dict-v0")
    assert (bytes_env.spec.obs_shape, bytes_env.spec.obs_dtype) == ((148,), np.uint8)  # MiniGrid's case
    assert (mixed.spec.obs_shape, mixed.spec.obs_dtype) == ((150,), np.float32)
    obs, _ = mixed.make(2).reset(seed=0)
    assert obs.shape == (2, 150) and obs.dtype == np.float32
    raw = DictEnv()
    raw_obs, _ = raw.reset(seed=3)
    packed = pack(raw_obs, mixed.spec.parts, np.dtype(np.float32))
    np.testing.assert_array_equal(packed[1:148], raw_obs["image"].reshape(-1))
    assert packed[0] == raw_obs["direction"] and np.allclose(packed[148:], raw_obs["speed"])


def test_the_multi_encoder_reads_each_key_with_its_reader():
    spec = GymEnv("RlfwTest/Dict-v0").spec
    net = build_network({"encoder": {"name": "mlp", "hidden": [32], "activation": "tanh"}, "head": {"name": "q"}}, spec)
    encoder = next(m for m in net.modules() if isinstance(m, Multi))  # chosen by itself for a Dict
    assert [p.key for p in encoder.parts] == ["direction", "image", "speed"]  # the readers in the parts' order
    direction, image, speed = encoder.readers
    assert image.channels_last and image.shape == (3, 7, 7) and image.cnn.convs[0].kernel_size == (2, 2)
    assert direction.out_dim == 4 and speed.out_dim == 2 and encoder.out_dim == 32
    x = torch.zeros(1, 150)
    x[0, 0] = 2  # direction 2
    torch.testing.assert_close(direction(x[:, :1]), torch.tensor([[0.0, 0.0, 1.0, 0.0]]))
    assert net(x)["q"].shape == (1, 3)


def test_a_key_the_encoder_options_name_that_the_env_lacks_is_named():
    spec = GymEnv("RlfwTest/Dict-v0").spec
    with pytest.raises(ConfigError, match=r"network.encoder.keys: colour not among .* it has direction, image, speed"):
        Multi(spec, keys={"colour": {"scale": 10}})
    with pytest.raises(ConfigError, match=r"network.encoder.keys.direction.scale: unknown key.*valid keys: skip"):
        Multi(spec, keys={"direction": {"scale": 10}})
    for scale, why in ((-1, r"scale=-1: .* > 0"), ("abc", r"scale='abc': expected float")):
        with pytest.raises(ConfigError, match=rf"^network.encoder.keys.image.{why}"):
            Multi(spec, keys={"image": {"scale": scale}})


def test_an_image_key_too_small_for_its_cnn_is_named_by_its_key():
    space = gym.spaces.Dict({"image": gym.spaces.Box(0, 255, (3, 3, 3), np.uint8), "direction": gym.spaces.Discrete(4)})
    parts, _ = layout(space)
    spec = EnvSpec("Tiny-v0", (28,), gym.spaces.Discrete(3), None, np.dtype(np.uint8), parts=parts)
    with pytest.raises(
        ConfigError, match=r"network.encoder.keys.image \(a \(3, 3, 3\) image\): .*too small for kernels"
    ):
        Multi(spec)
    Multi(spec, keys={"image": {"kernels": [2], "strides": [1], "channels": [8]}})  # one 2x2 layer fits


def test_ppo_learns_a_dict_env_and_predicts_from_its_dict_observations(tmp_path):
    """The reward depends on the direction key alone, among an image of noise and a vector: 20.0 of 20 here
    (a guess gets 20 / 3) at 16k env steps, 10.7 at 8k (seed 0, 2026-11-29)."""
    common = ["algo=ppo", "env=gym", "env.id=RlfwTest/Dict-v0", "total_env_steps=16384", "eval.every=16384"]
    summary = run(tmp_path, *common, "network.normalize_obs=true")
    assert summary["eval_return_mean"] > 15
    agent = rlfw.load(tmp_path)
    obs, _ = DictEnv().reset(seed=0)
    action, _ = agent.predict(obs)  # the Dict as the env gives it, packed as the run packed it
    assert action in (0, 1, 2)
    with pytest.raises(ValueError, match="predict: the observation lacks speed"):
        agent.predict({k: v for k, v in obs.items() if k != "speed"})


def test_keys_of_any_name_train_resume_load_and_export(tmp_path):
    """Keys named ``type``, ``values``, ``items.a-b`` (a torch container's methods, a dot and a dash) go
    through the multi encoder, the rollout, a checkpoint and a resume from it, ``rlfw.load`` with a Dict
    and both export formats."""
    from rlfw.agent.export import export

    common = ["algo=ppo", "env=gym", "env.id=RlfwTest/OddKeys-v0", "total_env_steps=2048", "replay.num_steps=64"]
    run(tmp_path / "first", *common, "eval.every=1024", "checkpoint.every=1024")
    middle = sorted((tmp_path / "first" / "checkpoints").glob("env_steps=*.ckpt"))[0]
    summary = run(tmp_path / "resumed", *common, "eval.every=1024", f"resume='{middle}'")
    assert summary["env_steps"] == 2048
    agent = rlfw.load(tmp_path / "resumed")
    assert [p.key for p in agent.spec.parts] == ["items.a-b", "type", "values"]
    obs, _ = DictEnv(names=ODD).reset(seed=0)
    assert agent.predict(obs)[0] in (0, 1, 2)
    for fmt, suffix in (("torchscript", ".pt"), ("onnx", ".onnx")):
        export(agent, fmt, tmp_path / f"policy{suffix}")  # checks the file's actions against the agent's
