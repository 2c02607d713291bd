"""A plain script for tests/run/test_ranks.py: one run on several CPU ranks (``trainer.strategy=ddp``).

    python tests/run/ddp_script.py <out folder> trainer.devices=2 <override> ...

Lightning starts rank 1 by running this command line again (under pytest it would run pytest again:
STACK.md, trap 6). Each rank writes its final network parameters and what it counted to
``<out>/rank<r>.pt``.
"""

import sys
from pathlib import Path

import lightning.pytorch as pl
import torch

from rlfw.config.build import build_parts
from rlfw.config.preflight import composed
from rlfw.config.trainer import quiet_lightning
from rlfw.run.collector import Collector
from rlfw.run.module import RLModule
from rlfw.run.train import make_trainer

if __name__ == "__main__":
    out, overrides = Path(sys.argv[1]), sys.argv[2:]
    cfg = composed("trainer.strategy=ddp", *overrides)
    torch.set_num_threads(1)
    quiet_lightning()
    module = RLModule(cfg, build_parts(cfg))
    own = [0]  # the env steps of this rank's own envs
    step = Collector._step

    def counted(collector: Collector) -> None:
        own[0] += collector.num_envs
        step(collector)

    Collector._step = counted
    trainer = make_trainer(cfg, out / "run", [pl.loggers.CSVLogger(out / "run", name="", version="")])
    trainer.fit(module)
    torch.save(
        {
            "params": module.net.state_dict(),
            "env_steps": module.progress.env_steps,
            "own_env_steps": own[0],
            "updates": module.progress.updates,
            "evals": module.progress.evals,
        },
        out / f"rank{trainer.global_rank}.pt",
    )
