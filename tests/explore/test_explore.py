import numpy as np
import pytest
import torch
from torch.distributions import Categorical

from rlfw.explore.act import Outputs
from rlfw.explore.epsilon_greedy import EpsilonGreedy
from rlfw.explore.greedy import Greedy
from rlfw.explore.sample import Sample
from rlfw.network.head.contract import NetworkHead
from rlfw.network.head.formulas import Categorical as Formula


def test_epsilon_decays_linearly_then_stays():
    e = EpsilonGreedy(start=1.0, end=0.1, decay_steps=100)
    assert [e.epsilon(s) for s in (0, 50, 100, 1000)] == pytest.approx([1.0, 0.55, 0.1, 0.1])


def test_epsilon_greedy_explores_at_the_scheduled_rate():
    q = torch.tensor([[0.0, 1.0, 0.0, 0.0]]).repeat(20_000, 1)
    e = EpsilonGreedy(start=0.4, end=0.4, decay_steps=1)
    action, extras = e.act(of({"q": q}), 0)
    non_greedy = (action != 1).mean()
    assert abs(non_greedy - 0.4 * 3 / 4) < 0.02 and extras == {}
    assert np.all(EpsilonGreedy(0.0, 0.0, 1).act(of({"q": q}), 0)[0] == 1)


class Fixed(NetworkHead):
    """Stands for a head: gives ``out`` for any observations (its scores closed where the observations'
    columns ``mask_columns`` close actions); greedy on ``q`` or ``logits``, and a Categorical policy over
    ``logits``."""

    def __init__(self, out: dict[str, torch.Tensor], mask_columns: tuple[int, int] | None = None):
        super().__init__()
        self.out, self.mask_columns = out, mask_columns
        self.scores = "q" if "q" in out else "logits" if "logits" in out else None

    def forward(self, obs) -> dict[str, torch.Tensor]:
        return self.open_to(self.out, obs) if obs is not None else self.out

    def mode(self, out):
        return (out["q"] if "q" in out else out["logits"]).argmax(dim=1)

    def distribution(self, out):
        return Formula(out["logits"])


def of(out: dict[str, torch.Tensor]) -> Outputs:
    scores = out["q"] if "q" in out else out["logits"]
    return Outputs(Fixed(out), lambda: None, len(scores), scores.shape[1])


def test_epsilon_greedy_runs_the_network_only_when_some_env_acts_greedily():
    q = torch.tensor([[0.0, 1.0, 0.0]]).repeat(4, 1)
    all_random = of({"q": q})
    action, _ = EpsilonGreedy(1.0, 1.0, 1).act(all_random, 0)
    assert not all_random.computed and action.shape == (4,) and bool(((action >= 0) & (action < 3)).all())
    for epsilon in (0.0, 0.5):
        torch.manual_seed(1)  # with 4 envs at 0.5, one acts greedily
        outputs = of({"q": q})
        EpsilonGreedy(epsilon, epsilon, 1).act(outputs, 0)
        assert outputs.computed


def test_greedy_reads_q_or_logits():
    assert Greedy().act(of({"q": torch.tensor([[1.0, 3.0]])}), 0)[0].tolist() == [1]
    assert Greedy().act(of({"logits": torch.tensor([[2.0, -1.0]]), "value": torch.zeros(1)}), 0)[0].tolist() == [0]


def test_sample_records_logp_and_value():
    logits = torch.log(torch.tensor([[0.9, 0.1]])).repeat(10_000, 1)
    action, extras = Sample().act(of({"logits": logits, "value": torch.zeros(10_000)}), 0)
    assert abs(action.mean() - 0.1) < 0.02
    np.testing.assert_allclose(extras["logp"], logits.numpy()[np.arange(10_000), action], rtol=1e-6)
    assert extras["value"].shape == (10_000,)


def test_sample_draws_from_the_categorical_policy():
    logits = torch.tensor([[1.5, -0.3, 0.0, 2.2, -1.0, 0.4]]).repeat(200_000, 1)
    torch.manual_seed(5)
    action, extras = Sample().act(of({"logits": logits, "value": torch.zeros(len(logits))}), 0)
    dist = Categorical(logits=logits)
    action = torch.from_numpy(action)
    frequency = torch.bincount(action, minlength=6) / len(action)
    p = dist.probs[0]
    assert torch.all((frequency - p).abs() < 5 * (p * (1 - p) / len(action)).sqrt())  # 5 standard errors
    torch.testing.assert_close(torch.from_numpy(extras["logp"]), dist.log_prob(action))


def test_the_inverse_cdf_never_draws_an_impossible_action(monkeypatch):
    """Even at u just below 1: these probabilities sum to 1 - 2**-24 in float32, so u could fall past
    the last possible action's cdf; and a draw of 0 takes the first possible action."""
    inf = float("inf")
    logits = torch.tensor([[-2.85, 0.7, -1.1, -inf], [-inf, 1.0, -inf, -inf]])
    for u, want in ((1 - 2**-24, [2, 1]), (0.0, [0, 1])):
        monkeypatch.setattr(torch, "rand", lambda *shape, u=u, **kwargs: torch.full(shape[0], u))
        action, logp = Formula(logits).sample_with_log_prob()
        assert action.tolist() == want and bool(torch.isfinite(logp).all())


def test_sample_draws_one_uniform_per_row_from_torchs_generator():
    torch.manual_seed(3)
    logits = torch.randn(5_000, 6) * 3
    logits[::7, 2] = -float("inf")  # masked actions too
    torch.manual_seed(4)
    action, extras = Sample().act(of({"logits": logits}), 0)
    torch.manual_seed(4)
    u = torch.rand(len(logits), 1)
    cdf = torch.softmax(logits, -1).cumsum(-1)
    want = (cdf <= u * cdf[:, -1:]).sum(-1)
    assert np.array_equal(action, want.numpy()) and not (action[::7] == 2).any() and "value" not in extras
    torch.testing.assert_close(torch.from_numpy(extras["logp"]), Categorical(logits=logits).log_prob(want))


def test_sample_acts_on_logits_that_require_grad_or_are_bfloat16_and_in_inference_mode():
    logits = torch.tensor([[0.0, 2.0, -1.0]], requires_grad=True).repeat(5, 1)
    sample = Sample()
    for out in (logits, logits.bfloat16()):
        action, extras = sample.act(of({"logits": out, "value": torch.zeros(5)}), 0)
        assert action.shape == (5,) and bool(((action >= 0) & (action < 3)).all())
        want = Categorical(logits=out.detach().float()).log_prob(torch.from_numpy(action))
        torch.testing.assert_close(torch.from_numpy(extras["logp"]), want)
    with torch.inference_mode():
        assert Sample().act(of({"logits": logits}), 0)[0].shape == (5,)
