"""Defect (issue 33, "shell commands on it take seconds"): the identifier words browse's
abbreviation search looks in were gathered on the first browse of a process, from every document of
the index (2.7 CPU s at 70,000 columns: ``evoonto browse`` from the shell went from 1.5 to 3.6 s).
They are now made with the index and kept in its cache file, so a loaded index has them."""

from __future__ import annotations

from evoonto.tools import index as index_module
from evoonto.tools.browse import abbreviations, browse
from evoonto.tools.index import IndexCache, SearchIndex
from evoonto.tools.settings import DEFAULT_WEIGHTS, BrowseSettings
from fixtures.retrieval_support import column_doc


def test_loaded_index_keeps_its_identifier_words(tmp_path, monkeypatch):
    docs = [column_doc("daily_weather", "visib", "visib", 0), column_doc("daily_weather", "stn", "stn", 1)]
    built = SearchIndex(docs)
    assert built.identifier_words["visib"] == "visib" and "daily" in built.identifier_words
    cache = IndexCache(tmp_path / "index", "fingerprint")
    cache.save(built, DEFAULT_WEIGHTS)

    def gathered_again(_documents):
        raise AssertionError("identifier words gathered again from the documents")

    monkeypatch.setattr(index_module, "identifier_words", gathered_again)
    loaded = cache.load(DEFAULT_WEIGHTS)
    assert loaded is not None
    assert loaded.identifier_words == built.identifier_words
    assert abbreviations(loaded, ["visibl"]) == [["visib"]]
    assert browse(loaded, BrowseSettings(), "visibility", format="compact", budget=300)
