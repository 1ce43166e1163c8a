"""Issue 34 item 3: the builder wrote the workspace itself, importing private workspace names
(``_read_config``, ``_remove_stale_init_folders``, ``LOCK_FILE`` …), so one ``evoonto build`` went
builder ⇄ workspace three times before opening a source, and a Python user needed three calls in a
fixed order (``workspace_base_iri``, ``build``, ``write_workspace``). The workspace now owns
writing (:meth:`Workspace.create`, :func:`evoonto.workspace.write_build`); the builder returns a
value."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from evoonto import BuildResult, Workspace, create_workspace
from evoonto.errors import WorkspaceError
from fixtures.builder_support import make_cards_db

BUILDER = Path(__file__).resolve().parents[2] / "evoonto" / "builder"


def test_the_builder_imports_no_private_workspace_name():
    imported = []
    for path in BUILDER.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "evoonto.workspace":
                imported += [(path.name, a.name) for a in node.names]
    assert imported  # it does use the workspace's public writer
    assert [(f, n) for f, n in imported if n.startswith("_") or n.isupper() and n != "BACKUP_DIR"] == []


def test_one_call_builds_and_writes_and_refuses_to_overwrite(tmp_path):
    db = make_cards_db(tmp_path)
    ws = Workspace.create(tmp_path / "ws", [db], ["How many cards are there?"])
    assert ws.version == 0 and (tmp_path / "ws" / "config.json").is_file()
    assert isinstance(ws.built, BuildResult) and ws.built.counts["terms"] > 0
    assert ws.base_iri == ws.built.base_iri and ws.settings["sources"]["cards"] == str(db.resolve())
    assert Workspace.open(tmp_path / "ws").store.count("content") == ws.store.count("content")
    with pytest.raises(WorkspaceError, match="pass --force"):
        create_workspace(tmp_path / "ws", [db])
    again = create_workspace(tmp_path / "ws", [db], force=True)
    assert again.identity != ws.identity and list((tmp_path / "ws" / "backups").iterdir())
