"""Rainbow's ablation (conf/ablate): each variant sets back exactly its one part of Rainbow, and the
config it makes is the one a user would write for it by hand."""

import pytest

from rlfw.config.preflight import composed

RAINBOW = ("algo=rainbow", "env=minatar")


def flat(tree: dict, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def changed(variant: str) -> dict[str, tuple]:
    """The keys where ``ablate=<variant>`` differs from full Rainbow: (Rainbow's value, the variant's)."""
    full, ablated = flat(composed(*RAINBOW, "ablate=none")), flat(composed(*RAINBOW, f"ablate={variant}"))
    return {k: (full.get(k), ablated.get(k)) for k in full.keys() | ablated.keys() if full.get(k) != ablated.get(k)}


def test_none_is_rainbow_itself():
    assert composed(*RAINBOW, "ablate=none") == composed(*RAINBOW)


@pytest.mark.parametrize(
    "variant, expected",
    [
        ("no_double", {"loss.double": (True, False)}),
        ("no_dueling", {"network.head.dueling": (True, False)}),
        ("no_prioritized", {"replay.alpha": (0.5, 0.0)}),
        ("no_nstep", {"replay.n_step": (3, 1)}),
    ],
)
def test_a_variant_sets_back_one_key(variant, expected):
    assert changed(variant) == expected


def test_no_noisy_explores_with_epsilon_instead():
    assert composed(*RAINBOW, "ablate=no_noisy") == composed(
        *RAINBOW, "network.head.noisy=false", "explore=epsilon_greedy", "explore.end=0.01"
    )


def test_no_distributional_keeps_the_other_five_parts():
    cfg = composed(*RAINBOW, "ablate=no_distributional")
    assert (cfg["network"]["head"]["name"], cfg["loss"]["name"]) == ("dueling_q", "double_dqn")  # dueling, Double
    assert cfg["network"]["head"]["noisy"] and cfg["explore"]["name"] == "greedy"
    assert (cfg["replay"]["name"], cfg["replay"]["alpha"], cfg["replay"]["n_step"]) == ("prioritized", 0.5, 3)
