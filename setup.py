"""Only what pyproject.toml cannot say: conf/ (the Hydra config tree) ships as the package rlfw.conf."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["rlfw", "rlfw.*"]) + ["rlfw.conf"],
    package_dir={"rlfw.conf": "conf"},
)
