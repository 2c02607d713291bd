from rlfw.env.spec import EnvSpec
from rlfw.errors import require


def require_discrete(spec: EnvSpec, head: str) -> None:
    """The shipped heads act in discrete action spaces only."""
    require(
        spec.discrete,
        "env.id",
        spec.id,
        f"network/head={head} needs a Discrete action space, this env has {spec.action_space}",
    )
