"""The wheel ships vocab/ and shapes/ as evoonto.vocab / evoonto.shapes (read via importlib.resources)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def offline_wheel_build_possible() -> bool:
    """An offline (no build isolation) wheel build needs `wheel` or setuptools >= 70.1 (own bdist_wheel)."""
    import importlib.util

    if importlib.util.find_spec("wheel") is not None:
        return True
    import setuptools

    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1)


@pytest.mark.slow
@pytest.mark.skipif(not offline_wheel_build_possible(),
                    reason="an offline wheel build needs the 'wheel' package or setuptools>=70.1")
def test_wheel_contains_vocab_and_shapes(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md", "MANIFEST.in"):
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, src / name)
    for folder in ("evoonto", "vocab", "shapes"):
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path / "dist"
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheel = next(out.glob("evoonto-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for ttl in sorted((ROOT / "vocab").glob("*.ttl")):
        assert f"evoonto/vocab/{ttl.name}" in names
    for ttl in sorted((ROOT / "shapes").glob("*.ttl")):
        assert f"evoonto/shapes/{ttl.name}" in names
    assert "evoonto/vocab/__init__.py" in names and "evoonto/shapes/__init__.py" in names
    # the lexicon and stop words of evoonto.lexicon / evoonto.text are data files, not code
    for tsv in sorted((ROOT / "evoonto" / "data" / "lexicon").glob("*.tsv")):
        assert f"evoonto/data/lexicon/{tsv.name}" in names
