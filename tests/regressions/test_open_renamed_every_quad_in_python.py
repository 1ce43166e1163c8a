"""Regression: opening a workspace renamed the graph of every quad of ``base.trig`` in Python (10 of
23 CPU s at 70,000 columns). The parser now reads the localized graph names when the text shows
that is the same (:func:`evoonto.store.load_localized_trig`); these tests pin that it is the same,
and that every other text is loaded quad by quad as before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evoonto.errors import RDFParseError
from evoonto.namespaces import workspace_graph_prefix
from evoonto.store import OxigraphStore, iter_localized_quads, iter_rdf_file, load_localized_trig
from evoonto.workspace import BASE_FILE, Workspace


def _base(path: Path) -> tuple[bytes, str]:
    return (path / BASE_FILE).read_bytes(), json.loads((path / "config.json").read_text())["base_iri"]


def _quad_by_quad(path: Path, data: bytes, base_iri: str) -> set:
    store = OxigraphStore()
    store.load_quads(iter_localized_quads(iter_rdf_file(path / BASE_FILE, data), base_iri))
    return set(store.ox.quads_for_pattern(None, None, None, None))


def _copy(concert_workspace: Path, tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(concert_workspace, target, ignore=shutil.ignore_patterns("cache", ".lock"))
    return target


def test_parser_localized_names_equal_the_quad_by_quad_load(concert_workspace: Path) -> None:
    data, base_iri = _base(concert_workspace)
    fast = load_localized_trig(data, base_iri)
    assert fast is not None, "the file evoonto writes takes the shortcut"
    quads = set(fast.ox.quads_for_pattern(None, None, None, None))
    assert quads == _quad_by_quad(concert_workspace, data, base_iri)
    assert {g.value.rsplit("/", 1)[-1] for g in fast.ox.named_graphs()} >= {"vocab", "shapes", "history", "content"}


def test_a_literal_quoting_a_graph_iri_keeps_its_text(concert_workspace: Path, tmp_path: Path) -> None:
    """Localizing in the text would have rewritten the quoted IRI; the shortcut is refused instead."""
    path = _copy(concert_workspace, tmp_path)
    data, base_iri = _base(path)
    quoted = f"<{workspace_graph_prefix(base_iri)}content>"
    note = f'\t<urn:x:note> <http://www.w3.org/2004/02/skos/core#note> "see {quoted} for the terms" .\n'
    head, sep, tail = data.decode().partition(f"{quoted} {{\n")
    assert sep, "the content graph's label is a line of its own"
    (path / BASE_FILE).write_text(head + sep + note + tail)
    data = (path / BASE_FILE).read_bytes()
    assert load_localized_trig(data, base_iri) is None
    ws = Workspace.open(path)
    notes = [str(row["n"]) for row in ws.ontology.query(
        "SELECT ?n WHERE { <urn:x:note> <http://www.w3.org/2004/02/skos/core#note> ?n }")]
    assert notes == [f"see {quoted} for the terms"]


@pytest.mark.parametrize("form", ["prefixed", "two blocks"])
def test_other_layouts_load_as_before(concert_workspace: Path, tmp_path: Path, form: str) -> None:
    """A graph named by a prefixed name, or written in two blocks, still opens with the same quads."""
    path = _copy(concert_workspace, tmp_path)
    data, base_iri = _base(path)
    text = data.decode()
    label = f"<{workspace_graph_prefix(base_iri)}content> {{\n"
    if form == "prefixed":
        text = f"@prefix g: <{workspace_graph_prefix(base_iri)}> .\n" + text.replace(label, "g:content {\n")
    else:
        text += label + "\t<urn:x:a> <urn:x:b> <urn:x:c> .\n}\n"
    (path / BASE_FILE).write_text(text)
    data = (path / BASE_FILE).read_bytes()
    expected = _quad_by_quad(path, data, base_iri)
    fast = load_localized_trig(data, base_iri)
    if fast is not None:  # two blocks of one graph: every occurrence is a label, the shortcut applies
        assert form == "two blocks"
        assert set(fast.ox.quads_for_pattern(None, None, None, None)) == expected
    ws = Workspace.open(path)
    assert set(ws.ontology.store.ox.quads_for_pattern(None, None, None, None)) == expected


def test_malformed_file_still_names_its_line(concert_workspace: Path, tmp_path: Path) -> None:
    path = _copy(concert_workspace, tmp_path)
    data, base_iri = _base(path)
    lines = data.decode().splitlines(keepends=True)
    broken = next(i for i, line in enumerate(lines) if line.startswith("\t<") and line.rstrip().endswith(";"))
    lines[broken] = lines[broken].replace(";", "'' oops ;", 1)
    (path / BASE_FILE).write_text("".join(lines))
    assert load_localized_trig((path / BASE_FILE).read_bytes(), base_iri) is None
    with pytest.raises(RDFParseError, match=rf"line {broken + 1}\b"):
        Workspace.open(path)


@pytest.mark.parametrize("directive", ["PREFIX g:", "prefix g: # a comment .", "BASE", "base # note"])
def test_a_directive_whose_iri_is_on_the_next_line_is_not_a_graph_label(
        concert_workspace: Path, tmp_path: Path, directive: str) -> None:
    """Review of the shortcut: ``PREFIX g:`` or ``BASE`` with its IRI on the next line makes that
    line read like a graph label (``<base>graph/x> {`` then opens a default-graph block); rewritten,
    ``g:`` (or the base) was bound to the local graph namespace and ``g:s`` read as another IRI."""
    path = _copy(concert_workspace, tmp_path)
    data, base_iri = _base(path)
    graphs = workspace_graph_prefix(base_iri)
    prefix = directive.lower().startswith("prefix")
    subject, meant = ("g:s", f"{graphs}contents") if prefix else ("<s>", f"{graphs}s")
    extra = f"{directive}\n<{graphs}content> {{\n}}\n<{graphs}content> {{\n\t{subject} <urn:x:p> \"x\" .\n}}\n"
    (path / BASE_FILE).write_bytes(data + extra.encode())
    data = (path / BASE_FILE).read_bytes()
    assert load_localized_trig(data, base_iri) is None
    expected = _quad_by_quad(path, data, base_iri)
    assert any(q.subject.value == meant for q in expected)  # bound to the published namespace
    assert set(Workspace.open(path).ontology.store.ox.quads_for_pattern(None, None, None, None)) == expected


def test_a_name_that_is_no_iri_before_the_rewrite_still_fails_as_before(tmp_path: Path) -> None:
    """Review of the shortcut: with a base IRI ending in ``#`` the label ``<base#graph/tools#x>`` is not
    an IRI (two ``#``); rewritten it was one, and the file loaded where it used to fail to parse."""
    base_iri = "https://example.org/evoonto/d#"
    text = f"<{workspace_graph_prefix(base_iri)}tools#x> {{\n\t<urn:x:s> <urn:x:p> \"x\" .\n}}\n"
    assert load_localized_trig(text.encode(), base_iri) is None
    with pytest.raises(RDFParseError):
        _quad_by_quad_file(tmp_path, text, base_iri)


def _quad_by_quad_file(tmp_path: Path, text: str, base_iri: str) -> set:
    (tmp_path / BASE_FILE).write_text(text)
    return _quad_by_quad(tmp_path, text.encode(), base_iri)


@pytest.mark.parametrize("base_iri", ["https://example.org/evoonto/a/", "http://e/"])
def test_a_label_near_the_parsers_token_limit_loads_as_before(base_iri: str) -> None:
    """Review of the shortcut: pyoxigraph refuses a token over 16 MiB; rewriting a label that long
    could make it fit (loaded where it failed) or overflow (raised MemoryError instead of falling back)."""
    name = b"a" * (16 * 1024 * 1024 - 40)
    text = b"<" + workspace_graph_prefix(base_iri).encode() + name + b"> {\n<urn:x:s> <urn:x:p> <urn:x:o> .\n}\n"
    assert load_localized_trig(text, base_iri) is None


def test_a_base_iri_that_cannot_be_encoded_loads_as_before() -> None:
    text = b'<http://e/graph/content> {\n<urn:x:s> <urn:x:p> "x" .\n}\n'
    assert load_localized_trig(text, "http://e/\ud800/") is None
