"""The notebooks under notebooks/ run top to bottom (nbmake, as CI does) and are stored without outputs.

Each notebook is executed by ``pytest --nbmake`` in a subprocess with a ``python3`` kernel spec that
points at this interpreter (a temporary ``JUPYTER_PATH`` entry), so the kernel sees the same
installation as the tests whatever kernels the machine has registered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_at_least_three_notebooks():
    assert len(NOTEBOOKS) >= 3, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: outputs not stripped"


@pytest.fixture(scope="session")
def jupyter_path(tmp_path_factory) -> Path:
    """A JUPYTER_PATH folder whose ``python3`` kernel runs this interpreter."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (evoonto tests)", "language": "python",
    }), encoding="utf-8")
    return root


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, jupyter_path, tmp_path):
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(jupyter_path), env.get("JUPYTER_PATH")]))
    env["MPLBACKEND"] = "Agg"
    env["IPYTHONDIR"] = str(tmp_path / "ipython")
    env.pop("EVOONTO_WORKSPACE", None)
    env.pop("ANTHROPIC_API_KEY", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbmake", "--nbmake-timeout=120", "-q", "-p", "no:cacheprovider",
         "--rootdir", str(tmp_path), str(path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
