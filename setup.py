"""Package layout: everything under evoonto/, plus the top-level vocab/ and shapes/ folders shipped
as evoonto.vocab and evoonto.shapes so that importlib.resources finds them in a wheel."""
from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["evoonto", "evoonto.*"]) + ["evoonto.vocab", "evoonto.shapes"],
    package_dir={"evoonto.vocab": "vocab", "evoonto.shapes": "shapes"},
    package_data={
        "evoonto.vocab": ["*.ttl"],
        "evoonto.shapes": ["*.ttl", "*.nt"],
        "evoonto": ["py.typed", "data/*", "data/*/*", "data/*/*/*", "viz/static/*"],
    },
)
