"""Only what pyproject.toml cannot say: conf/ (the Hydra config tree) ships as the package rlfw.conf,
and hydra_plugins/rlfw_plugins (a namespace package's subpackage, found by Hydra's plugin scan)."""

from setuptools import find_namespace_packages, find_packages, setup

setup(
    packages=find_packages(include=["rlfw", "rlfw.*"])
    + find_namespace_packages(include=["hydra_plugins.rlfw_plugins"])
    + ["rlfw.conf"],
    package_dir={"rlfw.conf": "conf"},
)
