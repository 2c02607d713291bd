"""Only what pyproject.toml cannot say: conf/ (the Hydra config tree) ships as the package rlfw.conf,
its groups (conf/algo, conf/env, ...) as that package's subpackages."""

from setuptools import find_namespace_packages, find_packages, setup

setup(
    packages=[
        *find_packages(include=["rlfw", "rlfw.*"]),
        "rlfw.conf",
        *(f"rlfw.conf.{group}" for group in find_namespace_packages(where="conf")),
        "hydra_plugins",
    ],
    package_dir={"rlfw.conf": "conf"},
)
