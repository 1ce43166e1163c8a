"""The registry of source kinds: built-ins register themselves, plugins come from entry points,
``open_source`` asks the registry, and ``sources/base.py`` imports no connector."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures.sources_support import make_hostile_db

import evoonto.sources.registry as registry
from evoonto.errors import SourceError
from evoonto.sources import (
    ColumnInfo,
    QueryResult,
    SourceKind,
    SourceWarning,
    TableInfo,
    open_source,
    register_source_kind,
    source_kind_of,
    source_kinds,
)
from evoonto.sources.base import BaseSource

PACKAGE = Path(registry.__file__).resolve().parent


class _ConstSource(BaseSource):
    """A one-table source that answers every query with the same row (a plugin stand-in)."""

    kind = "const"

    def _load_tables(self):
        return [TableInfo("t", (ColumnInfo("a"),), row_count=1)]

    def _execute(self, sql, limit, timeout_ms):
        return ["a"], [(42,)], False

    def _close(self):
        pass


def _opener(location, *, source_id, **options):
    return _ConstSource(source_id, str(location))


@pytest.fixture
def clean_registry(monkeypatch):
    """Run a test on a copy of the registry (so a test kind does not leak into other tests)."""
    source_kinds()  # load the built-ins first
    monkeypatch.setattr(registry, "_KINDS", dict(registry._KINDS))
    return registry


def test_builtin_kinds_are_registered_by_their_modules():
    assert set(source_kinds()) >= {"sqlite", "sqlalchemy", "files", "documents"}
    assert source_kinds()[-1] == "sqlite"  # the catch-all for files is asked last


def test_open_source_asks_the_registry(tmp_path: Path, clean_registry):
    register_source_kind(SourceKind("const", _opener, lambda loc: loc.startswith("const://"), priority=50))
    assert source_kind_of("const://anything") == "const"
    with open_source("const://anything", source_id="c") as src:
        assert isinstance(src, _ConstSource) and src.run("SELECT 1").scalar() == 42
    # a forced kind, on a path another kind would claim
    db = make_hostile_db(tmp_path)
    assert source_kind_of(db) == "sqlite"
    with open_source(db, kind="const") as src:
        assert src.kind == "const" and src.id == "hostile"


def test_a_kind_name_is_registered_once(clean_registry):
    kind = SourceKind("const", _opener)
    register_source_kind(kind)
    register_source_kind(kind)  # the same kind again is harmless
    with pytest.raises(SourceError, match="already registered"):
        register_source_kind(SourceKind("const", lambda *a, **k: None))
    with pytest.raises(SourceError, match="unknown source kind 'nope'"):
        open_source("x", kind="nope")


def test_entry_point_plugins_are_loaded(monkeypatch, clean_registry):
    class Point:
        def __init__(self, name, obj):
            self.name, self.value, self._obj = name, f"plugin:{name}", obj

        def load(self):
            if isinstance(self._obj, Exception):
                raise self._obj
            return self._obj

    called = []
    points = [Point("const", SourceKind("const", _opener, lambda loc: loc.startswith("const://"))),
              Point("hook", lambda: called.append(True)),
              Point("broken", ImportError("no module named evoonto_broken"))]
    seen_groups = []

    def fake_entry_points(*, group):
        seen_groups.append(group)
        return points

    monkeypatch.setattr(registry, "entry_points", fake_entry_points)
    monkeypatch.setattr(registry, "_LOADED", False)
    with pytest.warns(SourceWarning, match="broken"):
        kinds = source_kinds()
    assert seen_groups == ["evoonto.sources"]
    assert "const" in kinds and called == [True]
    assert source_kind_of("const://x") == "const"


def test_missing_paths_and_empty_folders_are_errors(tmp_path: Path):
    with pytest.raises(SourceError, match="not found"):
        source_kind_of(tmp_path / "nope.sqlite")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="holds no CSV/Parquet"):
        source_kind_of(tmp_path / "empty")


@pytest.mark.slow
def test_base_imports_no_connector_and_no_registry():
    tree = ast.parse((PACKAGE / "base.py").read_text(encoding="utf-8"))
    # module-level imports only: the compatibility aliases import the registry on first use
    imported = {node.module for node in tree.body if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in tree.body if isinstance(node, ast.Import) for a in node.names}
    forbidden = {f"evoonto.sources.{m}" for m in ("sqlite", "sqlalchemy", "files", "documents", "registry")}
    assert not imported & forbidden
    # and importing the package (base, guard, probe, quoting, the registry) loads no connector
    code = ("import json, sys, evoonto.sources.base; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('evoonto.sources.'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(json.loads(out))
    assert "evoonto.sources.base" in loaded
    assert not loaded & (forbidden - {"evoonto.sources.registry"}), loaded


def test_query_result_is_still_exported():
    assert QueryResult((), [], False, 0.0).scalar() is None
