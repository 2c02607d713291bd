"""Ray Tune's PopulationBasedTraining on the task of ``search=pbt_dqn_cartpole``: the same population,
ranges, interval, quantile, perturbation and budget, each member an rlfw run trained through rlfw's
Python API (``rlfw.train``) one generation a Tune iteration, paused and resumed as rlfw's own sweeper
does (``pause_at``, ``resume=auto``; a value Tune changes is a ``schedule`` entry from that env step).

Needs Ray Tune beside rlfw (``pip install "ray[tune]==2.60.0"``, in a venv of its own: it is not an rlfw
extra). Run by ``benchmarks/pbt.py --tune-python <that venv's python>``, or alone:

    python benchmarks/pbt_tune.py --seed 0 --out /tmp/pbt_tune_s0
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

POPULATION = 8
BASE = ["algo=dqn", "env=cartpole", "optim.anneal_lr=false", "eval.every=5000"]
KEYS = {"lr": "optim.lr", "tau": "target.tau"}


def trainable(out: Path, total: int, interval: int, extra: list[str]):
    from ray import tune

    import rlfw

    class Member(tune.Trainable):
        def setup(self, config):
            self.seed = config["seed"]
            self.schedule = {key: {0: config[name]} for name, key in KEYS.items()}
            self.dir = out / "runs" / self.trial_id
            self.at = 0  # env steps trained

        def step(self):
            end = min(total, (self.iteration + 1) * interval)
            schedule = [
                f"++schedule.{k}={{{','.join(f'{s}:{v!r}' for s, v in steps.items())}}}"
                for k, steps in self.schedule.items()
            ]
            pause = end if end < total else "null"
            own = [f"total_env_steps={total}", f"seed={self.seed}", f"pause_at={pause}", "resume=auto"]
            summary = rlfw.train(
                [*BASE, *extra, *schedule, *own, "stop_when_solved=false"],
                run_dir=self.dir,
            )
            self.at = summary["env_steps"]
            return {"return_mean": summary["eval_return_mean"], "env_steps": self.at, "done": end >= total}

        def save_checkpoint(self, checkpoint_dir):
            folder = Path(checkpoint_dir)
            last = self.dir / "checkpoints" / "last.ckpt"
            numbered = next(p for p in last.parent.glob("*=*.ckpt") if p.samefile(last))
            (folder / "checkpoints").mkdir(parents=True, exist_ok=True)
            for path in (numbered, numbered.with_suffix(".replay")):
                shutil.copyfile(path, folder / "checkpoints" / path.name)
            shutil.copyfile(numbered, folder / "checkpoints" / "last.ckpt")
            shutil.copyfile(self.dir / "metrics.csv", folder / "metrics.csv")
            state = {"seed": self.seed, "at": self.at, "schedule": self.schedule}
            (folder / "member.json").write_text(json.dumps(state))

        def load_checkpoint(self, checkpoint_dir):
            folder = Path(checkpoint_dir)
            state = json.loads((folder / "member.json").read_text())
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir.mkdir(parents=True)
            shutil.copytree(folder / "checkpoints", self.dir / "checkpoints")
            shutil.copyfile(folder / "metrics.csv", self.dir / "metrics.csv")
            self.seed, self.at = state["seed"], state["at"]  # the copied run's: its checkpoint carries its generators
            self.schedule = {k: {int(s): v for s, v in steps.items()} for k, steps in state["schedule"].items()}
            for name, key in KEYS.items():  # Tune's explore: this trial's (new) values from here on
                steps = self.schedule[key]
                if steps[max(steps)] != self.config[name]:
                    steps[self.at] = self.config[name]

    return Member


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--total", type=int, default=100_000, help="env steps a member trains")
    parser.add_argument("--interval", type=int, default=10_000, help="env steps a generation trains")
    parser.add_argument("overrides", nargs="*", help="more rlfw overrides for every member (a smoke test's)")
    args = parser.parse_args()
    import ray
    from ray import tune
    from ray.tune.schedulers import PopulationBasedTraining

    args.out.mkdir(parents=True, exist_ok=True)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)  # its own, not one left running
    space = {"lr": tune.loguniform(1e-4, 1e-2), "tau": tune.loguniform(0.01, 0.2)}
    pbt = PopulationBasedTraining(
        time_attr="training_iteration",
        perturbation_interval=1,
        hyperparam_mutations=space,
        quantile_fraction=0.25,
        resample_probability=0.25,
        perturbation_factors=(1.2, 0.8),
        synch=True,  # generations, as rlfw's sweeper runs them
    )
    tuner = tune.Tuner(
        tune.with_resources(trainable(args.out.absolute(), args.total, args.interval, args.overrides), {"cpu": 1}),
        param_space={**space, "seed": tune.randint(0, 2**31 - 1)},
        tune_config=tune.TuneConfig(
            scheduler=pbt,
            num_samples=POPULATION,
            metric="return_mean",
            mode="max",
            search_alg=tune.search.BasicVariantGenerator(random_state=args.seed),
        ),
        run_config=tune.RunConfig(
            name="pbt",
            storage_path=str(args.out.absolute() / "tune"),
            stop={"training_iteration": -(-args.total // args.interval)},
            checkpoint_config=tune.CheckpointConfig(checkpoint_frequency=1, num_to_keep=2),
            verbose=0,
        ),
    )
    start = time.perf_counter()
    results = tuner.fit()
    wall = time.perf_counter() - start
    finals = [r.metrics["return_mean"] for r in results]
    (args.out / "tune_result.json").write_text(json.dumps({"finals": finals, "wall_seconds": wall}))
    print(json.dumps({"finals": finals, "wall_seconds": wall}))


if __name__ == "__main__":
    main()
