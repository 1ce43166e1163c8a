"""The persisted store of a workspace version (issue 33 item 3, :mod:`evoonto.storecache`).

A big workspace keeps the store it loaded under ``cache/store/<key>/`` and opens it read-only next
time. These tests lower :data:`evoonto.workspace.PERSIST_MIN_BYTES` to 0 so the small finance
workspace takes that path, and check that the persisted store is used only for exactly the files
it was made from: never after an edit of base.trig, a patch committed by another writer, or a
patch file removed; that a write through it copies it into memory instead of changing the folder;
and that incomplete, damaged or in-use folders are handled.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import SKOS

import evoonto.workspace as workspace_module
from evoonto import storecache
from evoonto.namespaces import GRAPH_NAMES
from evoonto.storecache import MARKER, STORE_CACHE_DIR, PersistedStore, open_persisted, persist, prune
from evoonto.store import OxigraphStore
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace, term_patch


def state(onto) -> dict:
    return {name: set(onto.store.triples(name)) for name in GRAPH_NAMES}


def store_folders(path: Path) -> list[Path]:
    root = path / STORE_CACHE_DIR
    return sorted(f for f in root.iterdir() if f.is_dir() and not f.name.startswith(".")) if root.is_dir() else []


def folder_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name not in ("LOG", "LOCK")}


@pytest.fixture
def persist_all(monkeypatch):
    monkeypatch.setattr(workspace_module, "PERSIST_MIN_BYTES", 0)


@pytest.fixture
def ws(tmp_path, persist_all):
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda"))
    return ws


def test_second_open_uses_the_persisted_store_with_the_same_state(ws):
    first = Workspace.open(ws.path)  # parses the files, then persists the store
    assert not isinstance(first.store, PersistedStore)
    assert len(store_folders(ws.path)) == 1
    second = Workspace.open(ws.path)
    assert isinstance(second.store, PersistedStore) and second.store.folder == store_folders(ws.path)[0]
    assert second.version == first.version == 1
    assert state(second.ontology) == state(first.ontology) == state(ws.ontology)
    assert [e.id for e in second.log()] == [e.id for e in first.log()]


def test_small_workspace_is_not_persisted(tmp_path, monkeypatch):
    monkeypatch.setattr(workspace_module, "PERSIST_MIN_BYTES", 4 * 2**20)
    ws = finance_workspace(tmp_path / "ws")
    Workspace.open(ws.path)
    assert not isinstance(Workspace.open(ws.path).store, PersistedStore)
    assert store_folders(ws.path) == []


def test_persisted_store_not_used_when_base_trig_edited(ws):
    Workspace.open(ws.path)
    base = ws.path / "base.trig"
    text = base.read_text(encoding="utf-8")
    edited = text.replace('"Revenue"', '"Turnover"')
    assert edited != text
    base.write_text(edited, encoding="utf-8")
    again = Workspace.open(ws.path)
    assert not isinstance(again.store, PersistedStore)  # parsed: the key of the new bytes is new
    labels = {str(o) for o in again.store.ox.query(
        "SELECT ?l WHERE { GRAPH ?g { ?t <http://www.w3.org/2004/02/skos/core#prefLabel> ?l } }")}
    assert any("Turnover" in label for label in labels) and not any('"Revenue"' in label for label in labels)
    assert isinstance(Workspace.open(ws.path).store, PersistedStore)
    assert state(Workspace.open(ws.path).ontology) == state(again.ontology)


def test_persisted_store_not_used_after_another_writer_commits(ws):
    reader = Workspace.open(ws.path)
    assert isinstance(Workspace.open(ws.path).store, PersistedStore)
    writer = Workspace.open(ws.path)  # another writer (here: another Workspace object) commits
    writer.commit(term_patch(writer, "capex"))
    again = Workspace.open(ws.path)
    assert again.version == 2 == writer.version and reader.version == 1
    assert not isinstance(again.store, PersistedStore)
    assert state(again.ontology) == state(writer.ontology)
    assert isinstance(Workspace.open(ws.path).store, PersistedStore)


def test_persisted_store_not_used_when_a_patch_file_is_removed(ws):
    Workspace.open(ws.path)
    assert isinstance(Workspace.open(ws.path).store, PersistedStore)
    for file in (ws.path / "patches").glob("*.trig"):
        file.unlink()  # e.g. a checkout of the files before the patch
    again = Workspace.open(ws.path)
    assert again.version == 0
    ebitda = URIRef(ws.iris.term("finance", "ebitda"))
    assert not any(s == ebitda for s, _, _ in again.store.triples("content"))


def test_write_through_persisted_store_copies_it_into_memory(ws):
    Workspace.open(ws.path)
    opened = Workspace.open(ws.path)
    store = opened.store
    assert isinstance(store, PersistedStore)
    folder = store.folder
    assert folder is not None
    before = folder_files(folder)
    expected = state(opened.ontology)
    opened.record_rejected(term_patch(opened, "capex"), metadata={"candidate_score": 0.1})
    assert store.folder is None and "copied into memory" in repr(store)
    assert folder_files(folder) == before  # the persisted folder never changes
    assert state(opened.ontology)["content"] == expected["content"]
    assert len(state(opened.ontology)["history"]) > len(expected["history"])
    again = Workspace.open(ws.path)  # a new patch file: a new key, parsed and persisted again
    assert not isinstance(again.store, PersistedStore)
    assert state(again.ontology) == state(opened.ontology)


def test_commit_on_a_persisted_store_keeps_the_parent_version(ws):
    Workspace.open(ws.path)
    opened = Workspace.open(ws.path)
    parent = opened.ontology
    parent_state = state(parent)
    assert opened.commit(term_patch(opened, "capex")) == 2
    assert state(parent) == parent_state and isinstance(parent.store, PersistedStore)
    assert state(Workspace.open(ws.path).ontology) == state(opened.ontology)


def test_damaged_store_folder_is_never_used_and_replaced(ws):
    Workspace.open(ws.path)
    (folder,) = store_folders(ws.path)
    (folder / MARKER).unlink()  # incomplete: a folder without its marker
    again = Workspace.open(ws.path)
    assert not isinstance(again.store, PersistedStore)
    assert (folder / MARKER).is_file()  # replaced by a complete copy
    assert isinstance(Workspace.open(ws.path).store, PersistedStore)


def test_marker_of_another_key_is_refused(ws):
    Workspace.open(ws.path)
    (folder,) = store_folders(ws.path)
    assert open_persisted(ws.path, folder.name) is not None
    other = folder.with_name("0" * 64)
    folder.rename(other)  # a folder whose name is not the key in its marker
    assert open_persisted(ws.path, other.name) is None


def test_killed_writer_leaves_only_a_temp_folder_that_is_removed(ws):
    root = ws.path / STORE_CACHE_DIR
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = root / f".tmp-{dead.pid}-deadbeef"
    stale.mkdir(parents=True)
    (stale / "000001.sst").write_bytes(b"half written")
    Workspace.open(ws.path)
    assert not stale.exists()
    assert [f.name for f in store_folders(ws.path)] and all((f / MARKER).is_file() for f in store_folders(ws.path))


def test_prune_keeps_folders_in_use(ws, tmp_path):
    Workspace.open(ws.path)
    in_use = Workspace.open(ws.path)
    assert isinstance(in_use.store, PersistedStore)
    held = in_use.store.folder
    keys = []
    for i in range(3):  # three newer versions persisted by another writer
        store = OxigraphStore()
        store.add([(URIRef(f"https://example.org/s{i}"), SKOS.prefLabel, Literal(str(i)))], "content")
        keys.append(f"{i:064d}")
        assert persist(ws.path, keys[-1], store)
    names = {f.name for f in store_folders(ws.path)}
    assert held is not None and held.name in names  # held by a reader: kept
    assert keys[-1] in names and keys[0] not in names  # the oldest unused one is gone
    in_use.store.close()
    assert prune(ws.path, keep=[keys[-1]]) >= 1
    assert held.name not in {f.name for f in store_folders(ws.path)}


def test_unwritable_cache_folder_falls_back_to_the_files(ws, monkeypatch):
    in_memory = storecache.ox.Store

    def refuse(*args, **kwargs):
        if args or kwargs:  # an on-disk store: the disk is full
            raise OSError(28, "No space left on device")
        return in_memory()

    monkeypatch.setattr(storecache.ox, "Store", refuse)
    again = Workspace.open(ws.path)
    assert again.version == 1 and not isinstance(again.store, PersistedStore)
    root = ws.path / STORE_CACHE_DIR
    assert store_folders(ws.path) == []  # no store folder, complete or partial
    assert not root.exists() or not any(f.is_dir() for f in root.iterdir())


@pytest.mark.slow
def test_persisted_store_not_used_after_another_process_commits(ws):
    """A patch committed by another process: the next open parses the files, never the old store."""
    Workspace.open(ws.path)
    assert isinstance(Workspace.open(ws.path).store, PersistedStore)
    code = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[2]); "
            "from evoonto.workspace import Workspace; from fixtures.core_support import term_patch; "
            "ws = Workspace.open(sys.argv[1]); ws.commit(term_patch(ws, 'capex'))")
    subprocess.run([sys.executable, "-c", code, str(ws.path), str(Path(__file__).parent)], check=True,
                   env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    again = Workspace.open(ws.path)
    assert again.version == 2 and not isinstance(again.store, PersistedStore)
    capex = URIRef(ws.iris.term("finance", "capex"))
    assert any(s == capex for s, _, _ in again.store.triples("content"))


def test_remembered_digest_skips_reading_an_unchanged_base(ws, monkeypatch):
    monkeypatch.setattr(storecache, "RACY_NS", 0)  # the base was written long enough before it was hashed
    Workspace.open(ws.path)
    read: list[str] = []
    real = workspace_module._read_base_bytes

    def spy(path):
        read.append(str(path))
        return real(path)

    monkeypatch.setattr(workspace_module, "_read_base_bytes", spy)
    again = Workspace.open(ws.path)
    assert isinstance(again.store, PersistedStore) and read == []
    assert again.file_digest("base.trig") == storecache.remembered_digest(ws.path, "base.trig")


def test_same_size_edit_with_restored_mtime_is_not_hidden_by_remembered_digest(ws, monkeypatch):
    monkeypatch.setattr(storecache, "RACY_NS", 0)
    Workspace.open(ws.path)
    base = ws.path / "base.trig"
    st = os.stat(base)
    text = base.read_text(encoding="utf-8")
    edited = text.replace('"Revenue"', '"Rewenue"')  # same length
    assert edited != text and len(edited.encode()) == len(text.encode())
    base.write_text(edited, encoding="utf-8")
    os.utime(base, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back; ctime cannot be
    assert storecache.remembered_digest(ws.path, "base.trig") is None
    again = Workspace.open(ws.path)
    assert not isinstance(again.store, PersistedStore)
    assert any("Rewenue" in str(o) for _, _, o in again.store.triples("content"))


def test_digest_remembered_right_after_a_change_is_not_trusted(ws):
    Workspace.open(ws.path)  # base.trig was written moments ago: within RACY_NS of being hashed
    assert storecache.remembered_digest(ws.path, "base.trig") is None


def test_base_changed_while_it_was_loaded_is_not_remembered(ws, monkeypatch):
    """A same-size edit of base.trig while an open parses it: the digest remembered is of the bytes
    read, the stamps are those taken before the read, so the edit is seen at the next open."""
    monkeypatch.setattr(storecache, "RACY_NS", 0)
    base = ws.path / "base.trig"
    real = workspace_module._load_base

    def load_then_edit(path, base_iri, *, data=None):
        store = real(path, base_iri, data=data)
        st = os.stat(base)
        base.write_text(base.read_text(encoding="utf-8").replace('"Revenue"', '"Rewenue"'), encoding="utf-8")
        os.utime(base, ns=(st.st_atime_ns, st.st_mtime_ns))
        return store

    monkeypatch.setattr(workspace_module, "_load_base", load_then_edit)
    Workspace.open(ws.path)
    monkeypatch.setattr(workspace_module, "_load_base", real)
    assert storecache.remembered_digest(ws.path, "base.trig") is None
    again = Workspace.open(ws.path)
    assert any("Rewenue" in str(o) for _, _, o in again.store.triples("content"))
