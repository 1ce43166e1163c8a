"""Documents sources: passage splitting, BM25 search, catalog nodes, bad files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evoonto.errors import SourceError
from evoonto.sources import SourceWarning, open_source, source_kind_of
from evoonto.sources.documents import DocumentSource, split_passages

DOCS = Path(__file__).parent / "fixtures" / "sources_docs"


def test_folder_of_documents():
    assert source_kind_of(DOCS) == "documents"
    with open_source(DOCS) as src:
        assert isinstance(src, DocumentSource)
        assert (src.id, src.kind) == ("sources_docs", "documents")
        docs = {d.name: d for d in src.documents()}
        assert sorted(docs) == ["guide.md", "notes/status.txt"]
        guide = docs["guide.md"]
        assert guide.title == "School Meals Guide"
        headings = [p.heading for p in guide.passages]
        assert headings == ["School Meals Guide", "School Meals Guide > Free Meal Count",
                            "School Meals Guide > Charter schools"]
        assert "# this line is code" in guide.passages[2].text  # fenced code is not a heading
        assert guide.passages[1].line == 7
        assert src.tables() == []


def test_search_ranks_passages():
    with open_source(DOCS) as src:
        hits = src.search("free meal count students", n=2)
        assert hits and hits[0][0].heading.endswith("Free Meal Count")
        assert all(score > 0 for _, score in hits)
        banned = src.search("banned orders revenue", n=1)
        assert banned[0][0].document == "notes/status.txt"
        assert src.search("zzzz unknownword", n=3) == []
        with pytest.raises(SourceError):
            src.search("x", n=0)


def test_sql_is_not_available_on_documents():
    with open_source(DOCS) as src:
        with pytest.raises(SourceError, match="search"):
            src.run("SELECT 1")


def test_long_paragraphs_are_cut_within_the_limit():
    text = "# T\n\n" + " ".join(f"Sentence number {i} is here." for i in range(200))
    passages = split_passages(text, document="d", max_chars=200)
    assert len(passages) > 10
    assert all(len(p.text) <= 200 for p in passages)
    assert [p.n for p in passages] == list(range(len(passages)))
    with pytest.raises(SourceError):
        split_passages("x", max_chars=10)


def test_bad_files_are_skipped_or_decoded(tmp_path: Path):
    folder = tmp_path / "docs"
    shutil.copytree(DOCS, folder)
    (folder / "empty.md").write_text("   \n", encoding="utf-8")
    (folder / "old.txt").write_bytes("Caf\xe9 menu and meals\n".encode("latin-1"))
    with pytest.warns(SourceWarning) as record:
        src = open_source(folder)
    messages = " | ".join(str(w.message) for w in record)
    assert "'empty.md' is empty" in messages and "not valid UTF-8" in messages
    with src:
        old = next(d for d in src.documents() if d.name == "old.txt")
        assert old.passages[0].text.startswith("Café")


def test_folder_without_documents_is_an_error(tmp_path: Path):
    (tmp_path / "e.md").write_text("", encoding="utf-8")
    with pytest.warns(SourceWarning):
        with pytest.raises(SourceError, match="no readable"):
            open_source(tmp_path / "e.md")
