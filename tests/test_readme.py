"""The README's Python example runs as written (on the bundled concert_singer database)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "evoonto" / "data" / "concert_singer"


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_python_api_example_runs(tmp_path, monkeypatch, capsys):
    blocks = _python_blocks((REPO / "README.md").read_text(encoding="utf-8"))
    example = next(b for b in blocks if "OntologyTools" in b)
    shutil.copy(DATA / "concert_singer.sqlite", tmp_path / "concert.sqlite")
    shutil.copy(DATA / "questions.jsonl", tmp_path / "questions.jsonl")
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "README.md", "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out
    metrics, resolved = out.splitlines()[:2]
    assert "'l': rdflib.term.Literal('Singer age', lang='en')" in metrics  # the evo:Metric query
    assert "'id': 'term/concert/singer.Age'" in resolved  # browse found singer age, resolve returned it
    assert (tmp_path / "onto" / "config.json").is_file()
    turtle = (tmp_path / "content.ttl").read_text(encoding="utf-8")
    assert "skos:prefLabel" in turtle and "evo:Mapping" in turtle


def test_workspace_create_finds_the_builder_in_a_fresh_interpreter():
    """Regression: ``Workspace.create`` without ``builder=`` raised "no builder to create a workspace
    with" in a fresh interpreter (README's Python example run on its own), because the builder
    registered itself only when something else had imported ``evoonto.builder``. It is now found
    through the package's ``evoonto.builders`` entry point."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from evoonto.workspace import default_builder\n"
            "assert 'evoonto.builder' not in sys.modules\n"
            "build = default_builder()\n"
            "print(build.__module__)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().startswith("evoonto.builder")
